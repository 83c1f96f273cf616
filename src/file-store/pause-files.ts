/**
 * The two small files through which `derun pause` and a session's recorder talk (docs/privacy.md):
 * pause.json, the person's request (written by `derun pause`, removed by `derun resume`), and
 * paused.json, the recorder's answer (there exactly while it records nothing). Files, not a signal:
 * derun forwards every signal it gets to the command, and a file says which session is meant.
 */
import * as fs from "node:fs";
import { SCHEMA_VERSION } from "../core/enums.ts";
import type { PauseState } from "../core/store.ts";
import { MAX_JSON_BYTES, openRegularIfExists, readBoundedSync, writeFileAtomic } from "../safe-fs/index.ts";

/** The file's JSON; undefined when absent; `null` when it is there but cannot be read or parsed. */
function readSmallJson(file: string): unknown {
  let fd: number | undefined;
  try {
    fd = openRegularIfExists(file, fs.constants.O_RDONLY);
  } catch {
    return null;
  }
  if (fd === undefined) return undefined;
  try {
    const text = readBoundedSync(fd, MAX_JSON_BYTES);
    return text === undefined ? null : JSON.parse(text);
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

const isoMs = (value: unknown): number | undefined => (typeof value === "string" ? Date.parse(value) : Number.NaN) || undefined;

/** pause.json as the recorder reads it: unreadable still asks for a pause (a request to keep things private is never lost). */
export function readPauseRequest(file: string): { readonly until?: number } | undefined {
  const json = readSmallJson(file);
  if (json === undefined) return undefined;
  const until = json !== null && typeof json === "object" ? isoMs((json as { until?: unknown }).until) : undefined;
  return until === undefined ? {} : { until };
}

/** Write pause.json (a request) or remove it. */
export function writePauseRequest(file: string, request: { readonly until?: Date } | undefined): void {
  if (request === undefined) return fs.rmSync(file, { force: true });
  const body = { schema_version: SCHEMA_VERSION, requested_at: new Date().toISOString(), until: request.until?.toISOString() };
  writeFileAtomic(file, `${JSON.stringify(body)}\n`);
}

/** paused.json: the recorder's own state; an unreadable one still says paused (since unknown). */
export function readPauseState(file: string): PauseState | undefined {
  const json = readSmallJson(file);
  if (json === undefined) return undefined;
  const record = (json ?? {}) as { since?: unknown; until?: unknown };
  const since = typeof record.since === "string" ? record.since : "";
  return typeof record.until === "string" ? { since, until: record.until } : { since };
}

/** Write paused.json, or remove it. */
export function writePauseState(file: string, state: PauseState | undefined): void {
  if (state === undefined) return fs.rmSync(file, { force: true });
  writeFileAtomic(file, `${JSON.stringify({ schema_version: SCHEMA_VERSION, ...state })}\n`);
}
