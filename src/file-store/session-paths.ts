/**
 * Where the files of a session are, safely: every read and write resolves real paths
 * first and refuses anything that escapes `<root>/sessions/<id>`, including through dangling
 * symlinks, whose targets are resolved by hand because `realpath` cannot.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { DerunError } from "../core/errors.ts";
import { stateDir } from "../safe-fs/index.ts";

/** The files of a session directory. */
export type ArtifactName =
  | "meta.json"
  | "final.json"
  | "output.bin"
  | "index.jsonl"
  | "events.jsonl"
  | "commands.jsonl"
  | "append.lock"
  | "hidden.json"
  | "gaps.jsonl"
  | "pause.json"
  | "paused.json"
  | "trim.json"
  | "output.zst"
  | "output.seek.json";

const MAX_LINK_HOPS = 32;

const unsafe = (what: string) => new DerunError("unsafe_path", `unsafe path: ${what} escapes its session directory`);

const isMissing = (e: unknown) => (e as NodeJS.ErrnoException)?.code === "ENOENT" || (e as NodeJS.ErrnoException)?.code === "ENOTDIR";

/** The resolved directory of one session, and whether it exists yet. */
export interface SessionDirectory {
  /** Real path: `realpath(<root>/sessions)/<id>`. */
  readonly dir: string;
  readonly exists: boolean;
}

/**
 * Resolve `<root>/sessions/<id>` for an id that is already valid. Throws `unsafe_path` when
 * `sessions/` or the entry is a symlink or not a directory, or its real path is anywhere but
 * directly under `sessions/`.
 */
export function resolveSessionDir(root: string, id: string): SessionDirectory {
  const { path: sessions, exists } = stateDir(root, "sessions");
  if (!exists) return { dir: path.join(path.resolve(sessions), id), exists: false };
  const realSessions = fs.realpathSync(sessions);
  const expected = path.join(realSessions, id);
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(path.join(sessions, id));
  } catch (e) {
    if (isMissing(e)) return { dir: expected, exists: false };
    throw e;
  }
  if (stat.isSymbolicLink() || !stat.isDirectory()) throw unsafe(`session ${id}`);
  if (fs.realpathSync(path.join(sessions, id)) !== expected) throw unsafe(`session ${id}`);
  return { dir: expected, exists: true };
}

/**
 * The real path to open for artifact `name` of the session at real path `dir`. An absent artifact
 * resolves to `dir/name`; a symlink is followed by hand (so a dangling one is judged by its target)
 * and accepted only if it lands inside `dir`.
 */
export function resolveArtifact(dir: string, name: ArtifactName): string {
  let current = path.join(dir, name);
  for (let hops = 0; ; hops++) {
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(current);
    } catch (e) {
      if (isMissing(e)) break;
      throw e;
    }
    if (!stat.isSymbolicLink()) break;
    if (hops >= MAX_LINK_HOPS) throw unsafe(name);
    current = path.resolve(path.dirname(current), fs.readlinkSync(current));
  }
  let realParent: string;
  try {
    realParent = fs.realpathSync(path.dirname(current));
  } catch (e) {
    if (isMissing(e)) throw unsafe(name);
    throw e;
  }
  const resolved = path.join(realParent, path.basename(current));
  if (!resolved.startsWith(dir + path.sep)) throw unsafe(name);
  return resolved;
}
