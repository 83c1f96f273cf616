/**
 * Where TinyCC's files go when derun compiles its C (the session leader, ../pty/leader.ts). Bun's `cc`
 * writes a dozen header files to `$TMPDIR/bun-cc-0/` at every call, truncating the ones there, and
 * derun writes the source next to them. With /tmp on a disk (ext4), truncating a file that holds data
 * starts its writeback at close, so each start under a job-control shell queued disk writes and
 * waited on a busy disk: a compile took 2.6 ms on a quiet VM and 8-208 ms while other processes
 * wrote, against 1.3-1.9 and 1.3-7 ms in memory. So on Linux the compile runs in a memory-backed
 * directory when the temporary one is not: XDG_RUNTIME_DIR (the user's own), else /dev/shm.
 */
import { accessSync, constants, statfsSync } from "node:fs";
import { tmpdir } from "node:os";
import { withCEnv } from "./c-env.ts";

/** statfs f_type of tmpfs (linux/magic.h). */
const TMPFS_MAGIC = 0x01021994;

const onTmpfs = (dir: string): boolean => {
  try {
    return statfsSync(dir).type === TMPFS_MAGIC;
  } catch {
    return false;
  }
};

const usable = (dir: string | undefined): dir is string => {
  if (!dir?.startsWith("/") || !onTmpfs(dir)) return false;
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** The directory for compiling: the temporary one, or one in memory when that is on a disk (Linux). */
export function ccScratchDir(env: Record<string, string | undefined> = process.env): string {
  const temporary = tmpdir();
  if (process.platform !== "linux" || onTmpfs(temporary)) return temporary;
  return [env.XDG_RUNTIME_DIR, "/dev/shm"].find(usable) ?? temporary;
}

/** Runs `compile(dir)` with Bun's `cc` writing its headers under `dir` too. */
export function inCcScratch<T>(compile: (dir: string) => T): T {
  const dir = ccScratchDir();
  return dir === tmpdir() ? compile(dir) : withCEnv("TMPDIR", dir, () => compile(dir));
}
