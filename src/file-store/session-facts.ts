/**
 * What a reader knows about one session from its files: meta.json, final.json, the liveness of
 * its writer, and the dates derived from them (SessionInfo.state, ended_at, expires_at).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { DEFAULT_RETENTION_SECONDS, type SessionFinal, type SessionMeta } from "../core/store.ts";
import { DerunError, sessionNotFound } from "../core/errors.ts";
import { SCHEMA_VERSION, type DerunSessionState } from "../core/enums.ts";
import { isWriterAlive } from "./liveness.ts";
import { resolveArtifact, resolveSessionDir, type ArtifactName } from "./session-paths.ts";
import { isValidSessionId } from "../core/store/session-id.ts";
import { MAX_JSON_BYTES, openRegularIfExists, readBoundedSync } from "../safe-fs/index.ts";
import { isDerivedName } from "./derived-files.ts";

export interface SessionFacts {
  /** Real path of the session directory. */
  readonly dir: string;
  readonly meta: SessionMeta;
  readonly final?: SessionFinal;
  readonly state: DerunSessionState;
  readonly ended_at?: string;
  readonly expires_at?: string;
  /** Why the session failed: final.json's error, or that its derun is gone without saying how it ended. */
  readonly error?: string;
  /** The person hid it from agents (`derun hide`): hidden.json exists. */
  readonly hidden?: boolean;
  /** A session whose derun is gone: its newest file time, the last sign of life (what retention counts from). */
  readonly last_seen_at?: string;
}

/**
 * Read the facts of session `id`. Throws `session_not_found` for an invalid id, a missing directory
 * or one with neither meta.json nor final.json; `unsafe_path` for escapes; `corrupt_session` for
 * unparsable files. The directory's name is the session's id, whatever a (copied) file inside says.
 */
export function readSessionFacts(root: string, id: string): SessionFacts {
  const facts = readFacts(root, id);
  return isHidden(facts.dir) ? { ...facts, hidden: true } : facts;
}

/** hidden.json is there (whatever it holds: its presence is the mark, so a torn write still hides). */
const isHidden = (dir: string): boolean => fs.existsSync(resolveArtifact(dir, "hidden.json"));

function readFacts(root: string, id: string): SessionFacts {
  if (!isValidSessionId(id)) throw sessionNotFound(String(id));
  const { dir, exists } = resolveSessionDir(root, id);
  if (!exists) throw sessionNotFound(id);
  const metaOnDisk = readJson(dir, "meta.json", id, isMeta);
  const finalOnDisk = readJson(dir, "final.json", id, isFinal);
  if (!metaOnDisk && !finalOnDisk) throw sessionNotFound(id);
  const final = finalOnDisk && { ...finalOnDisk, session_id: id };
  const meta = metaOnDisk ? { ...metaOnDisk, session_id: id } : metaFromFinal(final!);
  if (final) return endedFacts(dir, meta, final);
  if (isWriterAlive(resolveArtifact(dir, "append.lock"))) {
    return {
      dir,
      meta,
      state: meta.pid === 0 ? "starting" : "running",
      expires_at: isoOrUndefined(Date.parse(meta.started_at) + retentionOf(meta) * 1000),
    };
  }
  // Its derun may have ended between the look at final.json and the look at its lock (a reader
  // woken by the end itself): final.json is written before the lock is let go, so look once more.
  const finalNow = readJson(dir, "final.json", id, isFinal);
  if (finalNow) return endedFacts(dir, meta, { ...finalNow, session_id: id });
  // Its derun is gone without final.json (SIGKILL, a crash, power loss): when it ended is unknown,
  // so no ended_at; retention counts from the last sign of life.
  const lastSeen = lastModified(dir);
  return {
    dir,
    meta,
    state: "failed",
    error:
      `derun${meta.derun_pid ? ` (pid ${meta.derun_pid})` : ""} stopped without recording how the session ended (killed or ` +
      `crashed); last sign of life ${lastSeen.toISOString()}`,
    last_seen_at: lastSeen.toISOString(),
    expires_at: isoOrUndefined(lastSeen.getTime() + retentionOf(meta) * 1000),
  };
}

/** The facts of a session whose final.json says how it ended. */
function endedFacts(dir: string, meta: SessionMeta, final: SessionFinal): SessionFacts {
  const expires = Date.parse(final.ended_at) + retentionOf(meta) * 1000;
  return { dir, meta, final, state: final.state, ended_at: final.ended_at, error: final.error, expires_at: isoOrUndefined(expires) };
}

const isoOrUndefined = (ms: number): string | undefined => (Number.isFinite(ms) ? new Date(ms).toISOString() : undefined);

/**
 * The meta of a directory holding only final.json (meta.json lost, or never written by an older
 * writer): what final.json says; the command and start are unknown, the start taken as the end.
 */
const metaFromFinal = (final: SessionFinal): SessionMeta => ({
  schema_version: SCHEMA_VERSION,
  session_id: final.session_id,
  command: [],
  working_directory: "",
  started_at: final.ended_at,
  retention_seconds: DEFAULT_RETENTION_SECONDS,
  transport_mode: "unknown",
  tty_attached: false,
  pid: 0,
  derun_pid: 0,
});

/** The session's own retention, or `fallback` when meta.json has none that is usable. */
export const retentionOf = (meta: Partial<SessionMeta>, fallback = DEFAULT_RETENTION_SECONDS): number =>
  Number.isSafeInteger(meta.retention_seconds) && meta.retention_seconds! > 0 ? meta.retention_seconds! : fallback;

/**
 * Newest modification time of `dir` and its direct children, without following symlinks: the last
 * touch that decides when an unreadable session expires. Throws if the directory cannot be read.
 * Files a reader derives (mask-map.bin, ./derived-files.ts) are no touch of the session's.
 */
export function lastModified(dir: string): Date {
  let newest = fs.lstatSync(dir).mtimeMs;
  for (const name of fs.readdirSync(dir)) {
    if (isDerivedName(name)) continue; // a reader's, written after the recorder's last sign of life
    try {
      newest = Math.max(newest, fs.lstatSync(path.join(dir, name)).mtimeMs);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e; // removed meanwhile: ignore
    }
  }
  return new Date(newest);
}

function readJson<T>(dir: string, name: ArtifactName, id: string, valid: (v: unknown) => v is T): T | undefined {
  const fd = openRegularIfExists(resolveArtifact(dir, name), fs.constants.O_RDONLY);
  if (fd === undefined) return undefined;
  let text: string | undefined;
  try {
    text = readBoundedSync(fd, MAX_JSON_BYTES);
  } finally {
    fs.closeSync(fd);
  }
  if (text === undefined) throw new DerunError("corrupt_session", `corrupt session ${id}: ${name} is larger than ${MAX_JSON_BYTES} bytes`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (!valid(value)) throw new DerunError("corrupt_session", `corrupt session ${id}: ${name} is not valid`);
  return value;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const isMeta = (v: unknown): v is SessionMeta =>
  isObject(v) &&
  typeof v.session_id === "string" &&
  typeof v.started_at === "string" &&
  Array.isArray(v.command) &&
  typeof v.pid === "number";

const isFinal = (v: unknown): v is SessionFinal =>
  isObject(v) && typeof v.ended_at === "string" && (v.state === "exited" || v.state === "signaled" || v.state === "failed");
