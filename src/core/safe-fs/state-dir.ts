/**
 * The directories derun keeps directly under its state root (`sessions/`, `logs/`): never a
 * symlink, or everything below would be written and read elsewhere. The root itself may be a
 * link (a moved ~/.local/state is common): only what derun creates below it must be its own.
 *
 * Before derun writes there, the root and these directories are checked as ssh checks ~/.ssh:
 * owned by this user and writable by nobody else. In a directory another user owns or can write,
 * they could plant or swap the files derun writes and read what it records.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { DerunError } from "../errors.ts";
import { ensurePrivateDir } from "./private-dir.ts";

const isMissing = (e: unknown) => (e as NodeJS.ErrnoException)?.code === "ENOENT" || (e as NodeJS.ErrnoException)?.code === "ENOTDIR";

/** The directories derun keeps directly under the state root. */
export type StateDirName = "sessions" | "logs";

/** `<root>/<name>` and whether it exists; refused (`unsafe_path`) when it is a symlink or not a directory. */
export function stateDir(root: string, name: StateDirName): { readonly path: string; readonly exists: boolean } {
  const entry = path.join(root, name);
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(entry);
  } catch (e) {
    if (isMissing(e)) return { path: entry, exists: false };
    throw e;
  }
  if (stat.isSymbolicLink())
    throw new DerunError("unsafe_path", `unsafe path: ${entry} is a symlink; derun records only inside its state root`);
  if (!stat.isDirectory()) throw new DerunError("unsafe_path", `unsafe path: ${entry} is not a directory`);
  return { path: entry, exists: true };
}

/**
 * Refuse (`unsafe_path`) a directory derun is about to write in that another user owns or that
 * group or others may write (the sticky bit does not help: files in it could still be theirs).
 * Followed if a link (the state root may be one). No check where there are no POSIX owners.
 */
export function checkOwnDir(dir: string): void {
  const uid = process.geteuid?.();
  if (uid === undefined) return;
  const stat = fs.statSync(dir);
  if (stat.uid !== uid) {
    throw new DerunError(
      "unsafe_path",
      `unsafe path: ${dir} belongs to another user (uid ${stat.uid}); derun writes only in directories of its own`,
    );
  }
  if ((stat.mode & 0o022) !== 0) {
    const mode = (stat.mode & 0o7777).toString(8).padStart(4, "0");
    throw new DerunError("unsafe_path", `unsafe path: ${dir} is writable by other users (mode ${mode}); chmod go-w it to record there`);
  }
}

/** Create `<root>/<name>` (and the root) with mode 0700 if missing, never through a symlink; returns its path. */
export function ensureStateDir(root: string, name: StateDirName): string {
  if (stateDir(root, name).exists) {
    checkOwnDir(root);
    checkOwnDir(path.join(root, name));
    return path.join(root, name);
  }
  ensurePrivateDir(root);
  checkOwnDir(root);
  try {
    // Not recursive: mkdir never follows a symlink in the last component (EEXIST instead).
    fs.mkdirSync(path.join(root, name), { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  }
  const dir = stateDir(root, name).path; // what is there now must be a real directory
  checkOwnDir(dir); // made by another user a moment before this mkdir, it would still be theirs
  fs.chmodSync(dir, 0o700);
  return dir;
}
