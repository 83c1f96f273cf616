/**
 * Where TinyCC's files go when derun compiles its C (the session leader, ../pty/leader.ts;
 * the native output pump, ../io/native-pump.ts). Bun's `cc`
 * writes a dozen header files to `$TMPDIR/bun-cc-0/` at every call, truncating the ones there, and
 * derun writes the source next to them. With /tmp on a disk (ext4), truncating a file that holds data
 * starts its writeback at close, so each start under a job-control shell queued disk writes and
 * waited on a busy disk: a compile took 2.6 ms on a quiet VM and 8-208 ms while other processes
 * wrote, against 1.3-1.9 and 1.3-7 ms in memory. So on Linux the compile runs in a memory-backed
 * directory when the temporary one is not: XDG_RUNTIME_DIR (the user's own), else /dev/shm.
 *
 * Never in one of those directly: /dev/shm is shared by every user, and an XDG_RUNTIME_DIR kept
 * across `su` or `sudo -E` is another user's. Whoever owns a directory (or may write it without the
 * sticky bit) can move derun's entries there aside and put their own in place between the write of
 * the source and TinyCC's read of it: their C compiled into derun. So the compile gets a directory
 * of ours, `derun-cc-<uid>`, 0700, checked (a real directory, this user's, nobody else's to enter),
 * in a base that only this user or root can rearrange; else the temporary directory, as before.
 */
import { cc, type FFIFunction, type Library } from "bun:ffi";
import { accessSync, constants, lstatSync, mkdirSync, mkdtempSync, rmSync, statfsSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { withCEnv } from "./c-env.ts";

/** statfs f_type of tmpfs (linux/magic.h). */
const TMPFS_MAGIC = 0x01021994;
const STICKY = 0o1000;

const onTmpfs = (dir: string): boolean => {
  try {
    return statfsSync(dir).type === TMPFS_MAGIC;
  } catch {
    return false;
  }
};

/** Nobody but this user, or root on a sticky directory, can move or replace what this user puts in `dir`. */
const baseHolds = (dir: string, uid: number): boolean => {
  try {
    const stat = statSync(dir);
    if (!stat.isDirectory()) return false;
    if (stat.uid === uid && (stat.mode & 0o022) === 0) return true;
    return stat.uid === 0 && (stat.mode & STICKY) !== 0;
  } catch {
    return false;
  }
};

/** `<base>/derun-cc-<uid>`, made 0700 if missing; undefined unless it is a directory (not a link) of ours no one else may enter. */
export function privateDirIn(base: string): string | undefined {
  const uid = process.geteuid?.();
  if (uid === undefined || !base.startsWith("/") || !baseHolds(base, uid)) return undefined;
  const dir = join(base, `derun-cc-${uid}`);
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") return undefined;
  }
  try {
    const stat = lstatSync(dir);
    if (!stat.isDirectory() || stat.uid !== uid || (stat.mode & 0o077) !== 0) return undefined;
    accessSync(dir, constants.W_OK | constants.X_OK);
    return dir;
  } catch {
    return undefined;
  }
}

/** The directory for compiling: the temporary one, or one of ours in memory when that is on a disk (Linux). */
export function ccScratchDir(env: Record<string, string | undefined> = process.env): string {
  const temporary = tmpdir();
  if (process.platform !== "linux" || onTmpfs(temporary)) return temporary;
  for (const base of [env.XDG_RUNTIME_DIR, "/dev/shm"]) {
    const dir = base !== undefined && onTmpfs(base) ? privateDirIn(base) : undefined;
    if (dir !== undefined) return dir;
  }
  return temporary;
}

/**
 * Runs `compile(dir)` with Bun's `cc` writing its headers under `dir` too. A compile that fails in
 * the memory-backed directory (full, say) runs again in the temporary one: only slower there.
 */
export function inCcScratch<T>(compile: (dir: string) => T): T {
  const dir = ccScratchDir();
  const temporary = tmpdir();
  if (dir === temporary) return compile(dir);
  try {
    return withCEnv("TMPDIR", dir, () => compile(dir));
  } catch {
    return compile(temporary);
  }
}

/**
 * Compiles C `source` (derun's own, no headers) with TinyCC through bun:ffi `cc`, which reads a
 * file: the source goes into a fresh private directory in the scratch directory (the compiled
 * binary has no file of it), removed after. `name` names the directory and the file.
 */
export function compileC<Fns extends Record<string, FFIFunction>>(name: string, source: string, symbols: Fns): Library<Fns>["symbols"] {
  return inCcScratch((scratch) => {
    const dir = mkdtempSync(join(scratch, `derun-${name}-`));
    try {
      const file = join(dir, `${name}.c`);
      writeFileSync(file, source, { mode: 0o600 });
      return cc({ source: file, symbols }).symbols;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
