/**
 * Opening files of the state directory that anyone with write access there could have replaced
 * (a hostile file must never hang or crash derun). A plain open of a FIFO blocks until a
 * peer appears, and reading a device or a huge file never ends, so every open here is
 * non-blocking (a FIFO opens at once for reading and fails with ENXIO for writing; on a regular
 * file O_NONBLOCK changes nothing), never follows a final symlink, and is refused unless fstat
 * says it is a regular file.
 */
import * as fs from "node:fs";
import { DerunError, type DerunErrorCode } from "../core/errors.ts";
import { O_NOFOLLOW } from "./private-dir.ts";

/** `O_NONBLOCK` where the platform has it (not on Windows, which has no FIFOs to fear there). */
const O_NONBLOCK: number = fs.constants.O_NONBLOCK ?? 0;

/** Largest meta.json or final.json worth parsing: real ones are well under a kilobyte. */
export const MAX_JSON_BYTES = 1 << 20;

export interface OpenRegularOptions {
  /** Error code when the file is not a regular one: `corrupt_session` (default) or `unsafe_path`. */
  readonly code?: Extract<DerunErrorCode, "corrupt_session" | "unsafe_path">;
  /** With `O_CREAT`: the file's mode, exactly (set again after the open, whatever the umask did). */
  readonly mode?: number;
  /**
   * For a file derun appends to: refused (`unsafe_path`) unless this user owns it and it has no
   * other name (a hard link planted to a file elsewhere would be written through).
   */
  readonly own?: boolean;
}

/**
 * Open `file` with `flags` plus O_NONBLOCK and O_NOFOLLOW, and return the fd only if it is a
 * regular file. ENOENT and other open errors are thrown unchanged (callers treat a missing file
 * their own way); a FIFO, socket, device or directory throws a DerunError with `options.code`.
 * With `options.mode` the file ends up with exactly that mode.
 */
export function openRegular(file: string, flags: number, options: OpenRegularOptions = {}): number {
  const refuse = () =>
    new DerunError(
      options.code ?? "corrupt_session",
      `${options.code === "unsafe_path" ? "unsafe path" : "corrupt session file"}: ${file} is not a regular file`,
    );
  let fd: number;
  try {
    fd = fs.openSync(file, flags | O_NONBLOCK | O_NOFOLLOW, options.mode);
  } catch (e) {
    // ENXIO: a FIFO without a reader (or a socket) opened for writing.
    if ((e as NodeJS.ErrnoException).code === "ENXIO") throw refuse();
    throw e;
  }
  let stat: fs.Stats;
  try {
    stat = fs.fstatSync(fd);
  } catch (e) {
    fs.closeSync(fd);
    throw e;
  }
  if (!stat.isFile()) {
    fs.closeSync(fd);
    throw refuse();
  }
  const uid = process.geteuid?.();
  if (options.own && uid !== undefined && (stat.uid !== uid || stat.nlink > 1)) {
    fs.closeSync(fd);
    const why = stat.uid !== uid ? `belongs to another user (uid ${stat.uid})` : "has other names (hard links)";
    throw new DerunError("unsafe_path", `unsafe path: ${file} ${why}`);
  }
  if (options.mode !== undefined) {
    try {
      fs.fchmodSync(fd, options.mode);
    } catch (e) {
      fs.closeSync(fd);
      throw e;
    }
  }
  return fd;
}

/** {@link openRegular}, or undefined when the file does not exist (ENOENT). */
export function openRegularIfExists(file: string, flags: number, options?: OpenRegularOptions): number | undefined {
  try {
    return openRegular(file, flags, options);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
}

/**
 * The whole content of the regular file open at `fd`, as UTF-8, or `undefined` when it holds more
 * than `limit` bytes. Never holds more than `limit + 1` bytes, even if the file grows meanwhile.
 */
export function readBoundedSync(fd: number, limit: number): string | undefined {
  let buffer = Buffer.allocUnsafe(Math.min(limit, fs.fstatSync(fd).size) + 1);
  let got = 0;
  for (;;) {
    const n = fs.readSync(fd, buffer, got, buffer.length - got, got);
    if (n === 0) return buffer.toString("utf8", 0, got);
    got += n;
    if (got > limit) return undefined;
    if (got === buffer.length) {
      const grown = Buffer.allocUnsafe(Math.min(limit + 1, got * 2)); // it grew since fstat
      buffer.copy(grown, 0, 0, got);
      buffer = grown;
    }
  }
}
