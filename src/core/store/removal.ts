/**
 * What removing sessions reports: retention GC's sweep (expired sessions, never live ones) and
 * `derun rm` of one session, one outcome per directory.
 */
import type { StoragePolicy } from "./disk.ts";

export interface SweepOptions {
  /** Default TTL for sessions whose meta.json has no retention_seconds, and for unreadable ones. */
  readonly ttlSeconds?: number;
  readonly now?: Date;
  /** Decide as a sweep would, remove nothing (outcomes say `remove` for what would go), log nothing. */
  readonly dryRun?: boolean;
  /** Stop early, at the next turn of the event loop (rejecting with the signal's reason); what is done stays done. */
  readonly signal?: AbortSignal;
  /** The disk budget (disk.ts): after the retention decisions, ended sessions go oldest first past it. */
  readonly storage?: StoragePolicy;
  /** Only the disk budget: no session is removed for its retention (the check after each run). */
  readonly budgetOnly?: boolean;
}

export type CleanupReason =
  | "not_expired"
  | "active_session"
  | "expired"
  | "unreadable_not_expired"
  | "unreadable_expired"
  | "unreadable_stat_error"
  | "remove_error"
  | "removed_elsewhere" // another sweep (or derun rm) removed it meanwhile: counted as removed
  | "over_max_total" // the sessions together held more than storage.max_total: the oldest ended ones went
  | "keep_free" // the filesystem had less free than storage.keep_free: the oldest ended ones went
  | "unfinished_removal"; // a removal stopped halfway (a killed sweep) was finished

export interface SweepOutcome {
  readonly session_id: string;
  readonly cleanup_result: "skip" | "remove" | "error";
  readonly cleanup_reason: CleanupReason;
  /** Bytes it held on disk, when the disk budget looked at it. */
  readonly bytes?: number;
  /** For the disk budget's removals: the figures that decided it ("sessions hold 50.0 MiB, max_total is 20.0 MiB"). */
  readonly detail?: string;
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
