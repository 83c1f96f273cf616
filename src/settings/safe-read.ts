/**
 * Reading a settings file of the person's as ssh reads ~/.ssh/config: a settings file says what is
 * masked, what is recorded and where, so one planted by someone else (or a FIFO, a device, a link
 * to /dev/zero) must never be taken. The file must be a regular file (opened non-blocking, a final
 * symlink not followed), owned by this user (or root), not writable by others or by a group that
 * is not the user's own, at most {@link MAX_SETTINGS_BYTES}; its directory must be owned by this
 * user (or root) and not writable by others. Anything else is one line naming the file (exit 2).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { DerunError } from "../core/errors.ts";
import { quote } from "../core/quote.ts";
import { openRegularIfExists, readBoundedSync } from "../safe-fs/index.ts";
import { isPrivateGroup } from "../safe-fs/private-group.ts";

/** Largest settings file derun reads: real ones are a few hundred bytes. */
export const MAX_SETTINGS_BYTES = 1 << 20;

const refuse = (file: string, why: string) => new DerunError("usage", `settings file ${quote(file)} ${why}`);

const modeText = (stat: fs.Stats) => (stat.mode & 0o7777).toString(8).padStart(4, "0");

/** Others may write it, or a group that is not this user's own private group. */
const writableByOthers = (stat: fs.Stats) => (stat.mode & 0o002) !== 0 || ((stat.mode & 0o020) !== 0 && !isPrivateGroup(stat.gid));

/** Refuse a file or directory someone else owns or may write. No check where there are no POSIX owners. */
function checkOwner(file: string, what: string, stat: fs.Stats): void {
  const uid = process.geteuid?.();
  if (uid === undefined) return;
  if (stat.uid !== uid && stat.uid !== 0) throw refuse(file, `${what}belongs to another user (uid ${stat.uid}); derun reads only your own`);
  if (writableByOthers(stat)) throw refuse(file, `${what}is writable by other users (mode ${modeText(stat)}); chmod go-w it`);
}

/**
 * The text of the settings file `file`, or undefined when there is none. Throws a DerunError
 * `usage` (one line naming the file) when it is not a regular file, not safely the person's own,
 * too large, or cannot be read.
 */
export function readSettingsText(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openRegularIfExists(file, fs.constants.O_RDONLY, { code: "unsafe_path" });
  } catch (error) {
    if (error instanceof DerunError) throw refuse(file, "is not a regular file");
    const code = (error as NodeJS.ErrnoException).code;
    // ELOOP: the final component is a symlink (O_NOFOLLOW); ENOTDIR: a file where a directory should be.
    if (code === "ELOOP") throw refuse(file, "is a symlink; derun reads only a regular file there (a linked directory is fine)");
    throw refuse(file, `cannot be read (${code ?? "error"})`);
  }
  if (fd === undefined) return undefined;
  try {
    checkOwner(file, "", fs.fstatSync(fd));
    checkOwner(file, `(its directory ${quote(path.dirname(file))}) `, fs.statSync(path.dirname(file)));
    const text = readBoundedSync(fd, MAX_SETTINGS_BYTES);
    if (text === undefined) throw refuse(file, `is larger than ${MAX_SETTINGS_BYTES} bytes`);
    return text;
  } catch (error) {
    if (error instanceof DerunError) throw error;
    throw refuse(file, `cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  } finally {
    fs.closeSync(fd);
  }
}
