/**
 * The Store interface: the session files under `<root>/sessions/<id>/` (docs/format.md), and the
 * types of what is persisted. Field names are snake_case, so people and other tools can read the
 * files directly. Every read and write resolves real paths first and refuses anything that escapes
 * `sessions/<id>` (DerunError "unsafe_path").
 */
import type { DerunFinalState, DerunOutputChannel, DerunSessionState, SCHEMA_VERSION } from "./enums.ts";
import type { CommandRecord } from "./shell/commands.ts";
import type { WindowSize } from "./transport.ts";
import type { SecretEnvFingerprints } from "./secrets/env-fingerprints.ts";

/** meta.json: written before the transport starts, rewritten once with the child's PID. */
export interface SessionMeta {
  readonly schema_version: typeof SCHEMA_VERSION;
  readonly session_id: string;
  /** argv as given after `--`. */
  readonly command: readonly string[];
  readonly working_directory: string;
  /** RFC 3339. */
  readonly started_at: string;
  readonly retention_seconds: number;
  /** `posix-pty`, `windows-conpty`, `pipe`, or a third-party transport's `meta.name`. */
  readonly transport_mode: string;
  readonly tty_attached: boolean;
  /** 0 until the child runs; the child's PID after. */
  readonly pid: number;
  /** The recording derun process, for liveness. */
  readonly derun_pid: number;
  /**
   * The window size the child started with, when derun had a terminal (an added field: earlier
   * readers ignore it). Later sizes are resize events in events.jsonl.
   */
  readonly cols?: number;
  readonly rows?: number;
  /** A shell session (`derun shell`): its commands are recorded in commands.jsonl (added field). */
  readonly records_commands?: boolean;
  /**
   * The command's stdout and stderr were one stream, recorded as channel `stdout` in the order
   * written: derun's own were (`2>&1`, or both the same terminal) (added field).
   */
  readonly merged_output?: boolean;
  /**
   * Fingerprints of the secret-named variables the command started with, never their values, so a
   * reader can mask them (added field; docs/secrets.md). Never served to a reader.
   */
  readonly secret_env?: SecretEnvFingerprints;
}

/** events.jsonl: one line per event that is not output; only resizes so far. */
export interface SessionEvent {
  readonly type: "resize";
  /** Output bytes recorded before the event: it applies to the bytes from this offset on. */
  readonly offset: number;
  readonly cols: number;
  readonly rows: number;
  /** RFC 3339 with milliseconds. */
  readonly timestamp: string;
}

/** index.jsonl: one line per committed chunk. */
export interface IndexRecord {
  readonly offset: number;
  readonly length: number;
  readonly channel: DerunOutputChannel;
  /** RFC 3339 with milliseconds. */
  readonly timestamp: string;
}

/**
 * Where records are and which channel wrote them, by record number (what the views need of
 * index.jsonl). Kept by column, so a session of a million small writes costs tens of MB, not an
 * object per record.
 */
export interface RecordSpans {
  /** Records held. */
  readonly count: number;
  offset(i: number): number;
  /** Just past record `i`'s last byte. */
  end(i: number): number;
  channel(i: number): DerunOutputChannel;
  /** The first record that ends after `offset`, or `count` when none does. */
  firstEndingAfter(offset: number): number;
  /** The last record of `channel` that starts before `before`, or -1. */
  lastOf(channel: DerunOutputChannel, before: number): number;
  /** The first record of `channel` numbered `from` (default 0) or later, or -1. */
  firstOf(channel: DerunOutputChannel, from?: number): number;
}

/** The committed records of index.jsonl, in offset order. */
export interface IndexRecords extends RecordSpans {
  timestamp(i: number): string;
  /** Record `i` as an object, made when asked. */
  record(i: number): IndexRecord;
}

/** final.json: written once, atomically, when the session ends. */
export interface SessionFinal {
  readonly schema_version: typeof SCHEMA_VERSION;
  readonly session_id: string;
  readonly state: DerunFinalState;
  readonly ended_at: string;
  /** When `state` is `exited`. */
  readonly exit_code?: number;
  /** When `state` is `signaled`, e.g. `SIGTERM`. */
  readonly signal?: string;
  /** When `state` is `failed`, or when capture broke mid-run (the command itself may have exited). */
  readonly error?: string;
  /**
   * Line feeds recorded per channel (added field): with it a reader numbers the lines of a finished
   * session without counting them from the start.
   */
  readonly output_lines?: Partial<Record<DerunOutputChannel, number>>;
  /** Shell sessions: whether the shell printed any command marks (without them, no records). */
  readonly command_marks_seen?: boolean;
}

/** A session as seen by readers: persisted facts plus the derived state. */
export interface SessionInfo {
  readonly meta: SessionMeta;
  /** Absent while the session runs (or if its derun died before writing it). */
  readonly final?: SessionFinal;
  /**
   * `starting` (no child PID yet) or `running` while the recording derun holds `append.lock`; the
   * final state once final.json exists; `failed` when there is no final.json and the lock is free
   * (its derun died).
   */
  readonly state: DerunSessionState;
  /** Bytes covered by complete index lines: the readable length of output.bin. */
  readonly output_bytes: number;
  /** `ended_at` from final.json; absent while live, and when its derun died without writing it (unknown). */
  readonly ended_at?: string;
  /** final.json's error, or, for a session whose derun died without final.json, that it did. */
  readonly error?: string;
  /**
   * When retention GC may remove it: retention_seconds after the end (while live, after the start;
   * after its last file change when its derun died).
   */
  readonly expires_at?: string;
}

/** One stretch of output returned by a read: one index record, clipped to the read window. */
export interface OutputSlice {
  readonly channel: DerunOutputChannel;
  /** Byte offset of `bytes[0]` in output.bin. */
  readonly start: number;
  /** `start + bytes.length`. */
  readonly end: number;
  readonly timestamp: string;
  readonly bytes: Uint8Array;
}

export interface ReadResult {
  readonly slices: readonly OutputSlice[];
  /** Where the next read starts: the end of the last slice, or the (clamped) cursor. */
  readonly next_cursor: number;
  /** Committed bytes at the time of the read. */
  readonly output_bytes: number;
  /** The session's state at the time of the read (see {@link SessionInfo.state}). */
  readonly state: DerunSessionState;
}

export interface CreateSessionOptions {
  /** Explicit id; must match `^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`. A ULID is generated if absent. */
  readonly sessionId?: string;
  readonly command: readonly string[];
  readonly workingDirectory: string;
  readonly retentionSeconds: number;
  readonly transportMode: string;
  readonly ttyAttached: boolean;
  /** Record the commands of a shell session (see {@link SessionMeta.records_commands}). */
  readonly recordsCommands?: boolean;
  /** See {@link SessionMeta.secret_env}. */
  readonly secretEnv?: SecretEnvFingerprints;
}

/** What meta.json learns once the child runs. */
export interface StartedUpdate {
  readonly pid: number;
  readonly transportMode: string;
  readonly ttyAttached: boolean;
  readonly size?: WindowSize;
  /** See {@link SessionMeta.merged_output}. */
  readonly outputsMerged?: boolean;
}

/**
 * The single writer of one session (the `derun run` process). Holds `append.lock` for its whole
 * life, so a second appender blocks until it is disposed.
 */
export interface SessionWriter extends AsyncDisposable {
  readonly sessionId: string;
  readonly directory: string;
  /** Rewrite meta.json (atomically) once the child runs; the transport may differ after a fallback. */
  started(update: StartedUpdate): Promise<void>;
  /** Record that the child's window is now `size` (events.jsonl). Throws on I/O failure, like append. */
  resized(size: WindowSize, at?: Date): void;
  /** Append one finished command of a shell session (commands.jsonl). Throws on I/O failure. */
  recordCommand(record: CommandRecord): void;
  /**
   * Append one chunk: bytes to output.bin, then its line to index.jsonl. Synchronous so chunk
   * order is the call order. Throws on I/O failure (disk full, EIO); the caller treats capture as
   * a side channel and stops capturing rather than disturbing the command.
   */
  append(channel: DerunOutputChannel, bytes: Uint8Array, at?: Date): void;
  /** Write final.json atomically. Call once. */
  finalize(final: Omit<SessionFinal, "schema_version" | "session_id" | "ended_at" | "output_lines"> & { ended_at?: string }): Promise<void>;
}

export interface SweepOptions {
  /** Default TTL for sessions whose meta.json has no retention_seconds, and for unreadable ones. */
  readonly ttlSeconds?: number;
  readonly now?: Date;
  /** Decide as a sweep would, remove nothing (outcomes say `remove` for what would go), log nothing. */
  readonly dryRun?: boolean;
  /** Stop early, at the next turn of the event loop (rejecting with the signal's reason); what is done stays done. */
  readonly signal?: AbortSignal;
}

export type CleanupReason =
  | "not_expired"
  | "active_session"
  | "expired"
  | "unreadable_not_expired"
  | "unreadable_expired"
  | "unreadable_stat_error"
  | "remove_error"
  | "removed_elsewhere"; // another sweep (or derun rm) removed it meanwhile: counted as removed

export interface SweepOutcome {
  readonly session_id: string;
  readonly cleanup_result: "skip" | "remove" | "error";
  readonly cleanup_reason: CleanupReason;
}

/**
 * Why `remove` did what it did: `removed` (a session directory, or an unreadable one), `link_removed`
 * (`sessions/<id>` was a symlink: the link is gone, its target untouched), `active_session` (its
 * recording derun is alive; refused without `force`), `not_found`, `remove_error` (see `error`).
 */
export type RemoveReason = "removed" | "link_removed" | "active_session" | "not_found" | "remove_error";

export interface RemoveOutcome {
  readonly session_id: string;
  readonly removed: boolean;
  readonly reason: RemoveReason;
  /** When `reason` is `remove_error`: what failed. */
  readonly error?: string;
}

/** See {@link Store.openOutput}. Dispose of it (or close it) when done: it holds the file open. */
export interface OutputReader extends Disposable {
  /** Bytes committed when it was opened: reads end there (a live session's later bytes wait for the next reader). */
  readonly committed: number;
  /** Output bytes from byte `start` into `into` (at most its length, not past `committed`); how many. */
  readInto(start: number, into: Uint8Array): number;
}

export interface Store {
  /** Absolute state root. */
  readonly root: string;
  /**
   * Create `sessions/<id>/` and write meta.json (pid 0). Rejects with DerunError
   * `invalid_session_id`, or `session_exists` when meta.json or final.json already exist; in both
   * cases nothing is written.
   */
  create(options: CreateSessionOptions): Promise<SessionWriter>;
  /**
   * All readable sessions, newest first. Unreadable directories are skipped, never fatal; a symlinked `sessions/` rejects (`unsafe_path`).
   */
  list(): Promise<SessionInfo[]>;
  /**
   * The ids of the sessions there are, in no order, without reading any of their files: what a
   * watcher looks at to see sessions appear or go (list() reads every session's facts).
   */
  ids(): Promise<string[]>;
  /** Rejects with DerunError `session_not_found` (also for invalid ids). */
  get(sessionId: string): Promise<SessionInfo>;
  /**
   * The session's committed output opened once, for a reader that streams it whole through one
   * buffer of its own (search): a fresh buffer per window cost more than reading it, and finding and
   * checking the session's files again for each window cost as much again. Rejects as {@link get}.
   * Optional: readers fall back to {@link read}.
   */
  openOutput?(sessionId: string): Promise<OutputReader>;
  /**
   * Read committed output from byte `cursor` (clamped to the committed end), at most `maxBytes`
   * bytes, as slices that follow index records. Never loads more than the window into memory.
   */
  read(sessionId: string, cursor: number, maxBytes: number): Promise<ReadResult>;
  /**
   * The committed index records, in offset order (they cover output.bin from 0 without gaps).
   * Views of several channels need them to know which channel wrote where without reading the bytes.
   * They may be shared and grow while the session runs: use the records below `output_bytes`.
   */
  records(sessionId: string): Promise<IndexRecords>;
  /**
   * Resolve when committed output extends past `cursor`, when the session is no longer live
   * (ended, or its derun died), when `signal` aborts, or after `timeoutMs`, whichever is first.
   * Woken by file-change notification, with a slow safety poll; many waits share one watcher per
   * session.
   */
  waitForOutput(sessionId: string, cursor: number, timeoutMs: number, signal?: AbortSignal): Promise<void>;
  /**
   * Watch for the next change that may mean something ended: a session created or removed, or a
   * live session's final.json or commands.jsonl written; woken by file-change notification, with a
   * slow safety poll (so `changed` may also resolve with nothing ended: look again). Resolves once
   * the watches are in place: what the caller reads after that, it reads before any change they
   * report. `changed` resolves at the change, after `timeoutMs`, or when `signal` aborts.
   * `live`: the live sessions to watch, when the caller knows them (else every session's facts are
   * read to find them).
   */
  watchEnds(timeoutMs: number, signal?: AbortSignal, live?: readonly string[]): Promise<{ readonly changed: Promise<void> }>;
  /** The session's events (resizes), in order; at most a few MB of them are read. */
  events(sessionId: string): Promise<SessionEvent[]>;
  /** The recorded commands of a shell session, in order (none for other sessions). */
  commands(sessionId: string): Promise<CommandRecord[]>;
  /** Retention GC: remove expired sessions, never live ones. One outcome (and log record) per directory. */
  sweep(options?: SweepOptions): Promise<SweepOutcome[]>;
  /**
   * Delete one session now, whatever its retention (a person who printed a secret). A live session
   * is refused unless `force`, which deletes only: its recording derun is not stopped, and writes
   * on into files that no longer have a name. Never follows a symlink: a symlinked `sessions/<id>`
   * loses the link, not its target. One outcome (and log record) per call; never rejects for a
   * session's own trouble (it is in the outcome). Rejects (`unsafe_path`) when `sessions/` itself
   * is a symlink, as every reader does.
   */
  remove(sessionId: string, options?: { readonly force?: boolean }): Promise<RemoveOutcome>;
}

export const DEFAULT_RETENTION_SECONDS = 24 * 60 * 60;

/** Whether a session in `state` may still produce output: its recording derun is at work. */
export const isLiveState = (state: DerunSessionState): boolean => state === "starting" || state === "running";
