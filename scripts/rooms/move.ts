/**
 * Moves files between rooms of src/ (docs/architecture.md) and rewrites every relative import that
 * reached a moved file, in src, test, bench, scripts and examples. The move map is a text file of
 * `from to` lines (a file or a folder each; `#` starts a comment).
 *
 *   bun scripts/rooms/move.ts scripts/rooms/house.map            # git mv, then rewrite imports
 *   bun scripts/rooms/move.ts scripts/rooms/house.map scripts/rooms/tests.map --rewrite
 *                                                   # only rewrite (a branch merged after the move)
 *
 * The rewrite is replayable: a specifier that still resolves is kept; one that does not is read from
 * the file's place before the move, carried through the map, and written relative to where it is now.
 * So a branch made before the move, merged after it (git carries edits to renamed files), is mended
 * by running the rewrite once more.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";

const ROOT = join(import.meta.dir, "../..");
const SCANNED = ["src", "test", "bench", "scripts", "examples"];

const mapFiles = process.argv.slice(2).filter((arg) => !arg.startsWith("--"));
const mode = process.argv.includes("--rewrite") ? "--rewrite" : undefined;
if (mapFiles.length === 0) {
  console.error("usage: bun scripts/rooms/move.ts <map>... [--rewrite]");
  process.exit(2);
}

const git = (...args: string[]) => execFileSync("git", args, { cwd: ROOT, encoding: "utf8" });

/** The map's pairs, folders expanded into the files git tracks under them (or, once moved, holds at the target). */
function filePairs(): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  const from = new Set<string>();
  // A file named on a line of its own is moved there; a folder's line after it leaves it alone.
  const add = (a: string, b: string) => {
    if (from.has(a)) return;
    from.add(a);
    pairs.push([a, b]);
  };
  for (const raw of mapFiles.flatMap((file) => readFileSync(file, "utf8").split("\n"))) {
    const line = raw.replace(/#.*/, "").trim();
    if (!line) continue;
    const [source, target] = line.split(/\s+/) as [string, string];
    const tracked = git("ls-files", "--", source).split("\n").filter(Boolean);
    if (tracked.length > 0) {
      for (const file of tracked) add(file, file === source ? target : join(target, relative(source, file)));
      continue;
    }
    // Already moved: read the folder's files at the target.
    for (const file of git("ls-files", "--", target).split("\n").filter(Boolean))
      add(file === target ? source : join(source, relative(target, file)), file);
  }
  return pairs;
}

const pairs = filePairs();
const forward = new Map(pairs);
// Where a file was before: the first line naming its place wins (two old files may have become one).
const backward = new Map<string, string>();
for (const [a, b] of pairs) if (!backward.has(b)) backward.set(b, a);

if (mode !== "--rewrite") {
  for (const [from, to] of pairs) {
    if (!existsSync(join(ROOT, from))) continue;
    mkdirSync(dirname(join(ROOT, to)), { recursive: true });
    git("mv", from, to);
  }
}

const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|new URL\(\s*)(["'])(\.{1,2}\/[^"']+)\2/g;
const isFile = (path: string) => existsSync(join(ROOT, path)) && statSync(join(ROOT, path)).isFile();
const dotted = (spec: string) => (spec.startsWith(".") ? spec : `./${spec}`);

let changed = 0;
for (const file of git("ls-files", "--", ...SCANNED).split("\n")) {
  if (!/\.(ts|js|mjs)$/.test(file) || !isFile(file)) continue;
  const before = backward.get(file) ?? file;
  const text = readFileSync(join(ROOT, file), "utf8");
  const next = text.replace(SPECIFIER, (whole, lead: string, quote: string, spec: string) => {
    // Moving, a file's specifiers are read from where it was; rewriting after a merge, one that
    // resolves where the file is now was written for that place and is kept.
    if (mode === "--rewrite" && isFile(normalize(join(dirname(file), spec)))) return whole;
    const old = normalize(join(dirname(before), spec));
    // A file moved twice (a folder's move, then a rename in the new room) is followed to its end.
    let target = old;
    for (let hops = 0; forward.has(target) && hops < 8; hops++) target = forward.get(target)!;
    if (!isFile(target)) return whole;
    const spec2 = dotted(relative(dirname(file), target));
    return spec2 === spec ? whole : `${lead}${quote}${spec2}${quote}`;
  });
  if (next !== text) {
    writeFileSync(join(ROOT, file), next);
    changed++;
  }
}
console.log(`${pairs.length} files in the map; imports rewritten in ${changed} files`);
