/**
 * The directories derun keeps directly under its state root (`sessions/`, `logs/`): never a
 * symlink, or everything below would be written and read elsewhere. The root itself may be a
 * link (a moved ~/.local/state is common): only what derun creates below it must be its own.
 *
 * Before derun writes there, the root and these directories are checked as ssh checks ~/.ssh:
 * owned by this user and writable by nobody else. In a directory another user owns or can write,
 * they could plant or swap the files derun writes and read what it records. The directories above
 * the root are checked as ssh checks those above ~/.ssh (checkAncestors).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { DerunError } from "../core/errors.ts";
import { quote } from "../core/quote.ts";
import { ensurePrivateDir } from "./private-dir.ts";
import { isPrivateGroup } from "./private-group.ts";

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
 * others, or a group not this user's own, may write (the sticky bit does not help: files in it
 * could still be theirs).
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
  if (writableByOthers(stat)) {
    throw new DerunError(
      "unsafe_path",
      `unsafe path: ${dir} is writable by other users (mode ${modeText(stat)}); chmod go-w it to record there`,
    );
  }
}

const modeText = (stat: fs.Stats) => (stat.mode & 0o7777).toString(8).padStart(4, "0");

/** Others may write it, or its group may and that group is not this user's own (./private-group.ts). */
const writableByOthers = (stat: fs.Stats): boolean => (stat.mode & 0o002) !== 0 || ((stat.mode & 0o020) !== 0 && !isPrivateGroup(stat.gid));

/**
 * Refuse (`unsafe_path`) a state root below a directory that another user (not root) owns, or that
 * others, or a group not this user's own, may write without the sticky bit (/tmp has it: there
 * nobody can move another's entry): its owner or writers could move the root aside and put a
 * directory or a link of their choice in its place, between two runs or between a check and a
 * write. Both the path as given and where it leads are checked; directories not there yet are left
 * to ensurePrivateDir (made 0700).
 */
export function checkAncestors(root: string): void {
  const uid = process.geteuid?.();
  if (uid === undefined) return;
  const given = path.resolve(root);
  // Where the path leads: the root's own real path (its parent is checked), or, while the root is
  // not there yet, that of the deepest directory above it that is (checked itself).
  let probe = given;
  let above: string;
  for (;;) {
    try {
      const real = fs.realpathSync(probe);
      above = probe === given ? path.dirname(real) : real;
      break;
    } catch (e) {
      if (!isMissing(e) || path.dirname(probe) === probe) throw e;
      probe = path.dirname(probe);
    }
  }
  const seen = new Set<string>();
  for (const start of [path.dirname(given), above]) {
    for (let dir = start; !seen.has(dir); dir = path.dirname(dir)) {
      seen.add(dir);
      let stat: fs.Stats;
      try {
        stat = fs.statSync(dir);
      } catch (e) {
        if (isMissing(e)) continue;
        throw e;
      }
      if (stat.uid !== uid && stat.uid !== 0) {
        throw new DerunError(
          "unsafe_path",
          `unsafe path: ${dir}, above the state root, belongs to another user (uid ${stat.uid}); ` +
            "choose a state root in a directory of your own",
        );
      }
      if (writableByOthers(stat) && (stat.mode & 0o1000) === 0) {
        throw new DerunError(
          "unsafe_path",
          `unsafe path: ${dir}, above the state root, is writable by other users (mode ${modeText(stat)}); ` +
            "chmod go-w it (or +t) to record below it",
        );
      }
    }
  }
}

/**
 * `root` is a directory (or a link to one), or nothing is there yet (a writer makes it); false for
 * a file at it or above it, where every state directory would fail to be made or found.
 */
export function isDirectoryIfThere(root: string): boolean {
  try {
    return fs.statSync(root, { throwIfNoEntry: false })?.isDirectory() ?? true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOTDIR") return false;
    throw error;
  }
}

/**
 * Refuse (`unsafe_path`, with the writer's own message) a state root that {@link ensureStateDir}
 * would refuse to write in: a reader that served it would hand an agent what another user planted
 * there. Nothing there yet is fine (nothing to read); nothing is made.
 */
export function checkStateRootForReading(root: string): void {
  if (!fs.existsSync(root)) return;
  checkAncestors(root);
  checkOwnDir(root);
  // A sessions/ that is a link is the store's to refuse, when it is used (as before).
  for (const name of ["sessions", "logs"] as const)
    if (fs.lstatSync(path.join(root, name), { throwIfNoEntry: false })?.isDirectory()) checkOwnDir(path.join(root, name));
}

/** Create `<root>/<name>` (and the root) with mode 0700 if missing, never through a symlink; returns its path. */
export function ensureStateDir(root: string, name: StateDirName): string {
  // Said as such, not as the EEXIST or ENOTDIR of a mkdir below.
  if (!isDirectoryIfThere(root)) throw new DerunError("invalid_argument", `state root ${quote(root)} is not a directory`);
  checkAncestors(root);
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
