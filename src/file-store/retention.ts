/**
 * Retention GC (docs/format.md, "Retention"). Each directory under `sessions/` gets exactly one outcome and
 * one log record. Readable sessions expire at (end, or last touch if their derun died, or start) +
 * their own retention_seconds; unreadable ones at their newest mtime + the sweep TTL. Sessions whose
 * writer still holds `append.lock` are never removed, and removal never follows a symlink. A dry run
 * decides the same and neither removes nor logs.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { DEFAULT_RETENTION_SECONDS, isLiveState, type CleanupReason, type SweepOptions, type SweepOutcome } from "../core/store.ts";
import type { Logger } from "../core/log.ts";
import { isWriterAlive } from "./liveness.ts";
import { stateDir } from "../safe-fs/index.ts";
import { resolveArtifact, resolveSessionDir } from "./session-paths.ts";
import { lastModified, readSessionFacts, retentionOf } from "./session-facts.ts";

/**
 * Sessions looked at between two turns of the event loop: a sweep reads each directory with
 * synchronous calls (about 80 µs a session on a 2-core VM), and `derun run` sweeps while its command
 * runs, so a state root of thousands of sessions must not hold keys and output back for long.
 */
const SWEEP_SLICE = 32;

/** Sweep `<root>/sessions`; calls `forget(id)` for each removed session. */
export async function sweepSessions(
  root: string,
  options: SweepOptions,
  log: Logger,
  forget: (id: string) => void,
): Promise<SweepOutcome[]> {
  const ttlSeconds = options.ttlSeconds ?? DEFAULT_RETENTION_SECONDS;
  const now = (options.now ?? new Date()).getTime();
  const sessions = path.join(root, "sessions");
  let names: string[];
  try {
    // Never through a symlinked sessions/: removing there would remove files outside the root.
    names = stateDir(root, "sessions").exists ? fs.readdirSync(sessions) : [];
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw e;
  }
  const outcomes: SweepOutcome[] = [];
  const place: SweepPlace = { root, sessions, ttlSeconds, now, remove: options.dryRun ? () => {} : removeWithoutFollowing };
  for (const [i, name] of names.entries()) {
    if (i > 0 && i % SWEEP_SLICE === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    options.signal?.throwIfAborted();
    const outcome = sweepOne(place, name);
    outcomes.push(outcome);
    if (options.dryRun) continue;
    if (outcome.cleanup_result === "remove") forget(name);
    log.log(outcome.cleanup_result === "error" ? "warn" : "info", "retention_sweep", { ...outcome });
  }
  return outcomes;
}

/** Where a sweep looks, when, and how it removes (nothing, in a dry run). */
interface SweepPlace {
  readonly root: string;
  /** `<root>/sessions` */
  readonly sessions: string;
  readonly ttlSeconds: number;
  /** The sweep's clock, in epoch milliseconds. */
  readonly now: number;
  readonly remove: (entry: string) => void;
}

/**
 * One directory's outcome. Another sweep (a second `derun gc`, another derun's start) may remove
 * the same directory meanwhile: an entry found gone, or going, counts as removed (`removed_elsewhere`),
 * not as a failure.
 */
function sweepOne(place: SweepPlace, name: string): SweepOutcome {
  const decided = decide(place, name);
  if (decided.cleanup_result === "remove" || !isGone(path.join(place.sessions, name))) return decided;
  return { session_id: name, cleanup_result: "remove", cleanup_reason: "removed_elsewhere" };
}

const isGone = (entry: string): boolean => {
  try {
    fs.lstatSync(entry);
    return false;
  } catch (e) {
    return isMissing(e);
  }
};

const isMissing = (e: unknown): boolean => (e as NodeJS.ErrnoException)?.code === "ENOENT";

function decide({ root, sessions, ttlSeconds, now, remove }: SweepPlace, name: string): SweepOutcome {
  const entry = path.join(sessions, name);
  const outcome = (cleanup_result: SweepOutcome["cleanup_result"], cleanup_reason: CleanupReason): SweepOutcome => ({
    session_id: name,
    cleanup_result,
    cleanup_reason,
  });
  const removeIf = (expired: boolean, reason: CleanupReason, skipReason: CleanupReason): SweepOutcome => {
    if (!expired) return outcome("skip", skipReason);
    try {
      remove(entry);
      return outcome("remove", reason);
    } catch {
      return outcome("error", "remove_error");
    }
  };

  let facts;
  try {
    facts = readSessionFacts(root, name);
  } catch {
    facts = undefined;
  }
  if (facts) {
    if (isLiveState(facts.state)) return outcome("skip", "active_session");
    const base = Date.parse(facts.ended_at ?? facts.last_seen_at ?? facts.meta.started_at);
    const expiresAt = base + retentionOf(facts.meta, ttlSeconds) * 1000;
    return removeIf(!(now < expiresAt), "expired", "not_expired");
  }

  // Unreadable or orphan: no meta.json, malformed files, a symlink or a stray file under sessions/.
  let touched: number;
  try {
    const stat = fs.lstatSync(entry);
    touched = stat.isDirectory() ? lastModified(entry).getTime() : stat.mtimeMs;
    if (stat.isDirectory() && unreadableButLive(root, name)) return outcome("skip", "active_session");
  } catch {
    return outcome("error", "unreadable_stat_error");
  }
  return removeIf(!(now < touched + ttlSeconds * 1000), "unreadable_expired", "unreadable_not_expired");
}

/** A writer may hold the lock of a directory whose meta.json is not written yet, or got damaged. */
export function unreadableButLive(root: string, name: string): boolean {
  try {
    const { dir, exists } = resolveSessionDir(root, name);
    return exists && isWriterAlive(resolveArtifact(dir, "append.lock"));
  } catch {
    return false;
  }
}

/**
 * Remove a directory tree or a single entry; symlinks are unlinked, never followed. What vanishes
 * meanwhile (another sweep removing the same tree) is already what this wants: not an error.
 */
export function removeWithoutFollowing(entry: string): void {
  try {
    const stat = fs.lstatSync(entry);
    if (!stat.isDirectory()) return fs.unlinkSync(entry);
    for (const child of fs.readdirSync(entry)) removeWithoutFollowing(path.join(entry, child));
    fs.rmdirSync(entry);
  } catch (e) {
    if (!isMissing(e)) throw e;
  }
}
