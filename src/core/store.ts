/**
 * The Store interface: the session files under `<root>/sessions/<id>/` (docs/format.md), read and
 * written only through it. Every read and write resolves real paths first and refuses anything that
 * escapes `sessions/<id>` (DerunError "unsafe_path"). Its parts are in `store/`: the files' shapes
 * (`session-files.ts`), the reads (`reader.ts`), the writer (`writer.ts`) and the outcomes of
 * removing sessions (`removal.ts`); this entry re-exports them, so callers import one module.
 */
import type { RemoveOutcome, SweepOptions, SweepOutcome } from "./store/removal.ts";
import type { StoreReader } from "./store/reader.ts";
import type { CreateSessionOptions, SessionWriter } from "./store/writer.ts";
import type { StoragePolicy } from "./store/disk.ts";

export type { CleanupReason, RemoveOutcome, RemoveReason, SweepOptions, SweepOutcome } from "./store/removal.ts";
export {
  type IndexRecords,
  isLiveState,
  type OutputReader,
  type OutputSlice,
  type ReadResult,
  type RecordSpans,
  type SessionInfo,
  type StoreReader,
  type CommandsQuery,
  type DerivedFile,
} from "./store/reader.ts";
export {
  type CommandGap,
  type CommandRecord,
  DEFAULT_RETENTION_SECONDS,
  type IndexRecord,
  type PauseState,
  type RecordGap,
  type SessionEvent,
  type SessionFinal,
  type SecretEnvFingerprints,
  type SecretFingerprint,
  type SessionMeta,
} from "./store/session-files.ts";
export type { CreateSessionOptions, SessionWriter, StartedUpdate } from "./store/writer.ts";
export { generateSessionId, isSessionRef, isValidSessionId, SESSION_REF, validateSessionId } from "./store/session-id.ts";
export { bytesOf, DEFAULT_STORAGE, describeSize, type DiskSize, humanBytes, type StoragePolicy } from "./store/disk.ts";

/** What the sessions take on disk (`derun du`), and the room on the state root's filesystem. */
export interface DiskUsage {
  /** Each entry under sessions/ (a session, or an unreadable leftover), by its allocated blocks. */
  readonly entries: ReadonlyArray<{ readonly session_id: string; readonly bytes: number }>;
  readonly total_bytes: number;
  readonly filesystem: { readonly size: number; readonly free: number; readonly block_size: number };
}

export interface Store extends StoreReader {
  /** Absolute state root. */
  readonly root: string;
  /**
   * Create `sessions/<id>/` and write meta.json (pid 0). Rejects with DerunError
   * `invalid_session_id`, or `session_exists` when meta.json or final.json already exist; in both
   * cases nothing is written.
   */
  create(options: CreateSessionOptions): Promise<SessionWriter>;
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
  /**
   * Hide the session from agents (hidden.json, an added file: `derun mcp` serves it as if it did not
   * exist), or show it again. Rejects as {@link StoreReader.get}.
   */
  setHidden(sessionId: string, hidden: boolean): Promise<void>;
  /**
   * Ask the session's recorder to stop recording (pause.json, until `until` when given) or, with
   * `undefined`, to record again (pause.json removed). The recorder answers in paused.json
   * ({@link StoreReader.pauseState}). Rejects as {@link StoreReader.get}.
   */
  requestPause(sessionId: string, request: { readonly until?: Date } | undefined): Promise<void>;
  /** What each session takes on disk (allocated blocks: punched holes and compression count right). */
  usage(): Promise<DiskUsage>;
  /** The disk budget this store's sweeps and writers follow, when it was given one. */
  readonly storage?: StoragePolicy;
}
