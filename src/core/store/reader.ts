/**
 * What a reader asks of the store, and what it gets back: a session's facts and derived state, its
 * committed output by cursor, its index by column, its events and command records, and waits for
 * more. Only bytes that complete index lines describe are served.
 */
import type { DerunOutputChannel, DerunSessionState } from "../enums.ts";
import type { CommandRecord, IndexRecord, PauseState, RecordGap, SessionEvent, SessionFinal, SessionMeta } from "./session-files.ts";

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
  /**
   * The person hid it from agents (`derun hide`, hidden.json): `derun mcp` serves it as if it did
   * not exist; the person's own readers read it. Absent when not hidden.
   */
  readonly hidden?: boolean;
  /**
   * Where the kept bytes begin when the session was trimmed (a live session past `max_session`
   * drops its oldest bytes; trim.json): earlier bytes are gone, later cursors read as before.
   */
  readonly kept_from?: number;
}

/** Whether a session in `state` may still produce output: its recording derun is at work. */
export const isLiveState = (state: DerunSessionState): boolean => state === "starting" || state === "running";

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
  /**
   * When the session was trimmed: where its kept bytes begin. A read from before it starts there
   * (its first slice, or `next_cursor`, says so), as if the bytes before had never been asked for.
   */
  readonly kept_from?: number;
}

/**
 * The store's reads. Outside core only the read engine (src/transcript) calls the ones that hand
 * out a session's bytes or facts, so every read passes the masking of secrets
 * (test/architecture/layers.test.ts).
 */
/** See {@link StoreReader.openOutput}. Dispose of it (or close it) when done: it holds the file open. */
export interface OutputReader extends Disposable {
  /** Bytes committed when it was opened: reads end there (a live session's later bytes wait for the next reader). */
  readonly committed: number;
  /** Where the kept bytes begin (0 unless trimmed): `readInto` before it throws `output_trimmed`. */
  readonly keptFrom: number;
  /** Output bytes from byte `start` into `into` (at most its length, not past `committed`); how many. */
  readInto(start: number, into: Uint8Array): number;
}

/** The files a reader derives from a session and keeps in its directory (never one the Go original reads). */
export type DerivedFile = "mask-map.bin";

/** Which of a session's command records a read wants (all, or the newest that fit, by default). */
export interface CommandsQuery {
  /** Only the record of this command. */
  readonly number?: number;
}

export interface StoreReader {
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
   * Runs `work` as one look at the sessions: an ended session's facts, checked once at its first
   * use in it, hold for the rest of it (a read asks for them three to six times: each one an lstat
   * of the session's directory). A trim is still looked for after bytes are read. For short work
   * (a page of output), never a wait. Optional: readers without it look every time.
   */
  atOnce?<T>(work: () => Promise<T>): Promise<T>;
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
  /**
   * The recorded commands of a shell session, in order (none for other sessions): all of them, or,
   * in a session with more than a few MB of records (tens of thousands of commands), the newest
   * that fit in that bound. With `number`: that one command's record alone, however old (or none).
   */
  commands(sessionId: string, options?: CommandsQuery): Promise<CommandRecord[]>;
  /** Where output the terminal showed was left out of the transcript (gaps.jsonl), in offset order. */
  gaps(sessionId: string): Promise<RecordGap[]>;
  /** Whether the session's recorder is paused now (paused.json), and until when. */
  pauseState(sessionId: string): Promise<PauseState | undefined>;
  /**
   * A file the read engine derives from a session and keeps beside it between runs (docs/format.md:
   * `mask-map.bin`): its bytes, or undefined when there is none, or it is not a regular file of this
   * user's with one name (a symlink is not followed), or it holds more than `limit` bytes. What it
   * says is the caller's to check. Rejects as {@link get} for the session itself. Optional.
   */
  readDerived?(sessionId: string, name: DerivedFile, limit: number): Promise<Uint8Array | undefined>;
  /**
   * Replace that file (a temporary file renamed over it); false when it cannot be written (a
   * read-only state root, a full disk): the caller keeps its work in memory. Rejects as {@link get}.
   */
  writeDerived?(sessionId: string, name: DerivedFile, bytes: Uint8Array): Promise<boolean>;
  /**
   * A view narrowed to a directory (`derun mcp --scope`): how many sessions it leaves out, counted,
   * never named (hidden ones are not counted: for an agent they do not exist). Absent when unscoped.
   */
  readonly outsideScope?: () => Promise<number>;
}
