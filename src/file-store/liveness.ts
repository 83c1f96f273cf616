/**
 * Liveness of a session's recording derun (docs/format.md, "States"). The writer holds `append.lock` for its
 * whole life and the kernel drops the lock when that process dies, so "can I take the lock right
 * now?" is an exact answer that PID reuse cannot fool. The probe releases the lock at once.
 */
import * as fs from "node:fs";
import { openLock, openRegularIfExists } from "../safe-fs/index.ts";

/**
 * Whether a live writer holds the lock file at `lockPath` (a path already checked by session-paths.ts).
 * A missing lock file means no writer; one that is not a regular file throws `corrupt_session`.
 */
export function isWriterAlive(lockPath: string): boolean {
  const fd = openRegularIfExists(lockPath, fs.constants.O_RDONLY);
  if (fd === undefined) return false;
  try {
    const lock = openLock(fd, lockPath);
    try {
      if (!lock.tryLock()) return true;
      lock.unlock();
      return false;
    } finally {
      lock.close();
    }
  } finally {
    fs.closeSync(fd);
  }
}
