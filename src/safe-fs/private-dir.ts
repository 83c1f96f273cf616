/** Directories only their owner can enter, and opens that never traverse a final symlink. */
import * as fs from "node:fs";
import * as path from "node:path";

/** `O_NOFOLLOW` where the platform has it (not on Windows), so opens never traverse a swapped-in link. */
export const O_NOFOLLOW: number = fs.constants.O_NOFOLLOW ?? 0;

/** Create `dir` (and missing parents) if needed; every directory created here gets exactly 0700. */
export function ensurePrivateDir(dir: string): void {
  const firstCreated = fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (firstCreated === undefined) return;
  for (let d = path.resolve(dir); d.length >= firstCreated.length; d = path.dirname(d)) fs.chmodSync(d, 0o700);
}
