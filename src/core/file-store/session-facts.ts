/**
 * What a reader knows about one session from its files: meta.json, final.json, the liveness of
 * its writer, and the dates derived from them (SessionInfo.state, ended_at, expires_at).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { DEFAULT_RETENTION_SECONDS, type SessionFinal, type SessionMeta } from "../store.ts";
import { DerunError, sessionNotFound } from "../errors.ts";
import type { DerunSessionState } from "../enums.ts";
import { isWriterAlive } from "./liveness.ts";
import { resolveArtifact, resolveSessionDir, type ArtifactName } from "./session-paths.ts";
import { isValidSessionId } from "./session-id.ts";
import { MAX_JSON_BYTES, openRegularIfExists, readBoundedSync } from "../safe-fs/index.ts";

export interface SessionFacts {
  /** Real path of the session directory. */
  readonly dir: string;
  readonly meta: SessionMeta;
  readonly final?: SessionFinal;
  readonly state: DerunSessionState;
  readonly ended_at?: string;
  readonly expires_at?: string;
}


/**
 * Read the facts of session `id`. Throws `session_not_found` for an invalid id, a missing directory
 * or a missing meta.json; `unsafe_path` for escapes; `corrupt_session` for unparsable files.
 */
export function readSessionFacts(root: string, id: string): SessionFacts {
  if (!isValidSessionId(id)) throw sessionNotFound(String(id));
  const { dir, exists } = resolveSessionDir(root, id);
  if (!exists) throw sessionNotFound(id);
  const meta = readJson(dir, "meta.json", id, isMeta);
  if (!meta) throw sessionNotFound(id);
  const final = readJson(dir, "final.json", id, isFinal);
  const state: DerunSessionState = final
    ? final.state
    : isWriterAlive(resolveArtifact(dir, "append.lock"))
      ? meta.pid === 0 ? "starting" : "running"
      : "failed";
  const ended_at = final?.ended_at ?? (state === "failed" ? lastModified(dir).toISOString() : undefined);
  const expires = Date.parse(ended_at ?? meta.started_at) + retentionOf(meta) * 1000;
  return { dir, meta, final, state, ended_at, expires_at: Number.isFinite(expires) ? new Date(expires).toISOString() : undefined };
}

/** The session's own retention, or `fallback` when meta.json has none that is usable. */
export const retentionOf = (meta: Partial<SessionMeta>, fallback = DEFAULT_RETENTION_SECONDS): number =>
  Number.isSafeInteger(meta.retention_seconds) && meta.retention_seconds! > 0 ? meta.retention_seconds! : fallback;

/**
 * Newest modification time of `dir` and its direct children, without following symlinks: the last
 * touch that decides when an unreadable session expires. Throws if the directory cannot be read.
 */
export function lastModified(dir: string): Date {
  let newest = fs.lstatSync(dir).mtimeMs;
  for (const name of fs.readdirSync(dir)) {
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
  isObject(v) && typeof v.session_id === "string" && typeof v.started_at === "string" && Array.isArray(v.command) &&
  typeof v.pid === "number";

const isFinal = (v: unknown): v is SessionFinal =>
  isObject(v) && typeof v.ended_at === "string" && (v.state === "exited" || v.state === "signaled" || v.state === "failed");
