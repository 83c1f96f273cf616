/**
 * What the sessions take on disk, and the room on the state root's filesystem. A session's size is
 * its allocated blocks (st_blocks), not its files' lengths: a live session trimmed by punched holes
 * (trim.ts) and a compressed one take less than their length says, a sparse copy more honestly too.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { stateDir } from "../safe-fs/index.ts";

/** st_blocks counts 512-byte units on every platform derun runs on. */
const BLOCK_UNIT = 512;

/** Where a session being removed waits for its files to go: invisible to readers (not a session id). */
export const REMOVING_PREFIX = ".removing-";

/**
 * The session a removal was begun for, from the name it was renamed to (retention.ts:
 * `.removing-<id>.<pid>.<time>`), so a person is told of the session, not of the name; undefined for
 * any other name.
 */
export function sessionOfRemoval(name: string): string | undefined {
  if (!name.startsWith(REMOVING_PREFIX)) return undefined;
  const parts = name.slice(REMOVING_PREFIX.length).split(".");
  return parts.length >= 3 ? parts.slice(0, -2).join(".") : undefined;
}

export interface Filesystem {
  /** Bytes the filesystem holds in all. */
  readonly size: number;
  /** Bytes an unprivileged writer may still use (statfs f_bavail). */
  readonly free: number;
  /** Its block size: trims drop whole blocks of this. */
  readonly blockSize: number;
}

/** The filesystem holding `root` (or its nearest existing parent, before anything was recorded). */
export function filesystemOf(root: string): Filesystem {
  let at = path.resolve(root);
  for (;;) {
    try {
      const s = fs.statfsSync(at);
      return { size: s.blocks * s.bsize, free: s.bavail * s.bsize, blockSize: s.bsize };
    } catch (e) {
      const parent = path.dirname(at);
      if ((e as NodeJS.ErrnoException).code !== "ENOENT" || parent === at) throw e;
      at = parent;
    }
  }
}

/** Bytes allocated to `entry` and, for a directory, to its direct children (a session has no deeper ones). */
export function allocatedBytes(entry: string): number {
  let total = 0;
  const stat = fs.lstatSync(entry, { bigint: false });
  total += stat.blocks * BLOCK_UNIT;
  if (!stat.isDirectory()) return total;
  for (const name of fs.readdirSync(entry)) {
    try {
      total += fs.lstatSync(path.join(entry, name)).blocks * BLOCK_UNIT;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e; // removed meanwhile
    }
  }
  return total;
}

/** Every entry of `<root>/sessions` with what it takes; entries gone meanwhile are left out. */
export function entrySizes(root: string): Array<{ readonly name: string; readonly bytes: number }> {
  const sessions = stateDir(root, "sessions");
  if (!sessions.exists) return [];
  const sizes: Array<{ name: string; bytes: number }> = [];
  for (const name of fs.readdirSync(sessions.path)) {
    try {
      sizes.push({ name, bytes: allocatedBytes(path.join(sessions.path, name)) });
    } catch {
      // gone meanwhile, or unreadable: it takes nothing a sweep could count on
    }
  }
  return sizes;
}
