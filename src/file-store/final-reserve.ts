/**
 * Room kept for final.json. On a full disk the session's outcome (exit code, signal, why capture
 * stopped) is the one thing a reader must still find, so a session reserves a little space when it
 * is created and gives it back just when final.json needs it. A sparse file reserves nothing, so the
 * bytes are written.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { openRegular, writeAllSync } from "../safe-fs/index.ts";

/** A dot name: no artifact, no session id; retention removes it with its directory. */
const RESERVE_NAME = ".final.reserve";
/** final.json and its temp file are under 1 KiB each, but file systems allocate whole blocks (tmpfs: 4 KiB pages). */
const RESERVE_BYTES = 16 * 1024;

/** Write the reserve into the real session directory `dir`; throws when even that does not fit. */
export function reserveRoom(dir: string): void {
  const fd = openRegular(path.join(dir, RESERVE_NAME), fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, { mode: 0o600 });
  try {
    writeAllSync(fd, new Uint8Array(RESERVE_BYTES));
  } finally {
    fs.closeSync(fd);
  }
}

/** Give the room back (before the last try at final.json, and when the writer closes). Never throws. */
export function releaseRoom(dir: string): void {
  try {
    fs.unlinkSync(path.join(dir, RESERVE_NAME));
  } catch {
    // already gone, or the directory with it
  }
}
