/**
 * Session facts as readers get them: snake_case, optional fields omitted rather than null, command
 * lines and the working directory masked (./masking.ts). Queries and commands read a session's
 * facts only through here (test/architecture/layers.test.ts): never the store's own get or list.
 */
import type { SessionInfo, Store } from "../core/store.ts";
import { maskArgv, maskText, redactorFor } from "./masking.ts";
import { resolveSessionId } from "./session-ref.ts";

/** Copy of `fields` without the keys whose value is undefined, so JSON and structuredContent agree. */
const defined = <T extends Record<string, unknown>>(fields: T): T =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as T;

/**
 * A session as a reader sees it: its argv, working directory and error masked, `redacted` how many
 * secrets that hid. Its meta keeps the fingerprints of its environment (for the masking of what
 * is read next); the answers below name their fields one by one, and those are not among them.
 */
export interface ReadSession {
  readonly info: SessionInfo;
  readonly redacted: number;
}

/** A session's facts as readers get them (see {@link ReadSession}). */
export function shownSession(info: SessionInfo): ReadSession {
  const redactor = redactorFor(info.meta);
  const meta = info.meta;
  const argv = maskArgv(redactor, meta.command);
  const cwd = maskText(redactor, meta.working_directory);
  // The error quotes what failed to start (`command not found: ghp_…`): a command line's word.
  const error = info.error === undefined ? undefined : maskText(redactor, info.error);
  const final = info.final?.error === undefined ? info.final : { ...info.final, error: maskText(redactor, info.final.error).text };
  return {
    info: {
      ...info,
      meta: { ...meta, command: argv.argv, working_directory: cwd.text },
      ...(error === undefined ? {} : { error: error.text }),
      ...(final === undefined ? {} : { final }),
    },
    redacted: argv.count + cwd.count + (error?.count ?? 0),
  };
}

/** The session a reference (`id`, `last`, `last~N`) names; `session_not_found` when there is none. */
export async function readSession(store: Store, ref: string): Promise<ReadSession> {
  return shownSession(await store.get(await resolveSessionId(store, ref)));
}

/** Every session, newest first. */
export async function readSessions(store: Store): Promise<ReadSession[]> {
  return (await store.list()).map(shownSession);
}

/**
 * Where a session is, in the facts that hold no secret (id, state, bytes recorded): what a watcher
 * compares to tell that it changed, without masking anything. `last`: the newest session (every
 * session's facts are read, none masked); undefined when there is no such session.
 */
export async function sessionProgress(store: Store, ref: string): Promise<Progress | undefined> {
  const info = ref === "last" ? (await store.list())[0] : await store.get(await resolveSessionId(store, ref));
  return info && { session_id: info.meta.session_id, state: info.state, output_bytes: info.output_bytes };
}

type Progress = { readonly session_id: string; readonly state: SessionInfo["state"]; readonly output_bytes: number };

/**
 * The newest session's {@link sessionProgress}, for a watcher that asks again and again: a
 * session's start time never changes, so each session's facts are read once, when it first
 * appears (listing every session's facts on every change cost a subscription to derun://last what
 * every session did); then the newest's own. The order is list()'s: start time, then id, newest
 * first. A session unreadable (or whose meta.json is not there yet) is looked at again next time.
 */
export class NewestSession {
  readonly #started = new Map<string, string>();

  constructor(private readonly store: Store) {}

  async progress(): Promise<Progress | undefined> {
    const ids = await this.store.ids();
    const present = new Set(ids);
    for (const id of this.#started.keys()) if (!present.has(id)) this.#started.delete(id);
    for (const id of ids) {
      if (this.#started.has(id)) continue;
      try {
        this.#started.set(id, (await this.store.get(id)).meta.started_at);
      } catch {
        // unreadable, not complete yet, or removed meanwhile
      }
    }
    let newest: string | undefined;
    let at = "";
    for (const [id, started] of this.#started)
      if (newest === undefined || started > at || (started === at && id > newest)) [newest, at] = [id, started];
    if (newest === undefined) return undefined;
    try {
      return await sessionProgress(this.store, newest);
    } catch {
      this.#started.delete(newest); // gone since: the next look finds the one before it
      return this.progress();
    }
  }
}

/**
 * The ids of the sessions readers see, newest first: what changes when one appears or goes (a
 * directory is seen once its meta.json is there, as in every listing), nothing masked.
 */
export async function sessionIds(store: Store): Promise<string[]> {
  return (await store.list()).map((info) => info.meta.session_id);
}

/** One row of derun_list_sessions. */
export const sessionSummary = (info: SessionInfo) =>
  defined({
    session_id: info.meta.session_id,
    state: info.state,
    command: [...info.meta.command],
    started_at: info.meta.started_at,
    ended_at: info.ended_at,
    exit_code: info.final?.exit_code,
    signal: info.final?.signal,
    output_bytes: info.output_bytes,
    transport_mode: info.meta.transport_mode,
    // Only a reader of the person's sees a hidden session (derun mcp does not): derun ls marks it.
    hidden: info.hidden ? true : undefined,
  });

/** The session object of derun_get_session. */
export const sessionDetail = (info: SessionInfo) =>
  defined({
    session_id: info.meta.session_id,
    state: info.state,
    command: [...info.meta.command],
    working_directory: info.meta.working_directory,
    started_at: info.meta.started_at,
    ended_at: info.ended_at,
    exit_code: info.final?.exit_code,
    signal: info.final?.signal,
    error: info.error,
    pid: info.meta.pid,
    transport_mode: info.meta.transport_mode,
    tty_attached: info.meta.tty_attached,
    merged_output: info.meta.merged_output,
    cols: info.meta.cols,
    rows: info.meta.rows,
    output_bytes: info.output_bytes,
    retention_seconds: info.meta.retention_seconds,
    expires_at: info.expires_at,
    hidden: info.hidden ? true : undefined,
    // A live session past max_session dropped the bytes before this cursor (trim.json).
    trimmed_before: info.kept_from === undefined ? undefined : String(info.kept_from),
  });
