/**
 * A PATH for a machine that lacks some programs (no `bun`, no `derun`): one directory of symlinks to
 * every other program of the current PATH, first found first, as a shell would resolve them. The
 * programs themselves stay where they are; only their names are filtered.
 */
import { mkdirSync, readdirSync, statSync, symlinkSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

export function pathWithout(omit: readonly string[], into: string, path = process.env.PATH ?? ""): string {
  mkdirSync(into, { recursive: true });
  const seen = new Set(omit);
  for (const dir of path.split(delimiter).filter(isAbsolute)) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (seen.has(name)) continue;
      try {
        if (!statSync(join(dir, name)).isFile()) continue;
      } catch {
        continue;
      }
      seen.add(name);
      symlinkSync(join(dir, name), join(into, name));
    }
  }
  return into;
}
