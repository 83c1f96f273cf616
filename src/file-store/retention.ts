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
import { limitsOf, planBudget, type BudgetEntry } from "./budget.ts";
import { entrySizes, filesystemOf, REMOVING_PREFIX } from "./disk-usage.ts";
import type { StoragePolicy } from "../core/store/disk.ts";
import { compressSession } from "./compressed-output.ts";
import { describeError } from "../core/errors.ts";

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
  // The check after each run: sizes and free space first (a stat per file), facts only when over.
  if (options.budgetOnly && (!options.storage || withinBudget(root, options.storage))) return [];
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
  const place: SweepPlace = {
    root,
    sessions,
    ttlSeconds,
    now,
    expire: !options.budgetOnly,
    dryRun: options.dryRun ?? false,
    remove: options.dryRun ? () => {} : removeSessionEntry,
    budget: new Map(),
  };
  const record = (outcome: SweepOutcome) => {
    outcomes.push(outcome);
    if (options.dryRun) return;
    if (outcome.cleanup_result === "remove") forget(outcome.session_id);
    if (outcome.cleanup_result === "skip" && options.budgetOnly) return; // the check after each run logs only what it did
    log.log(outcome.cleanup_result === "error" ? "warn" : "info", "retention_sweep", { ...outcome });
  };
  for (const [i, name] of names.entries()) {
    if (i > 0 && i % SWEEP_SLICE === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    options.signal?.throwIfAborted();
    record(sweepOne(place, name));
  }
  if (options.storage) enforceBudget(place, outcomes, options.storage, record);
  if (options.storage?.compress && !options.dryRun && !options.budgetOnly) compressEnded(place, outcomes, log);
  return outcomes;
}

/** With storage.compress: every ended session the sweep kept, compressed (compressed-output.ts). */
function compressEnded(place: SweepPlace, outcomes: readonly SweepOutcome[], log: Logger): void {
  const kept = new Set(outcomes.filter((o) => o.cleanup_result === "skip").map((o) => o.session_id));
  for (const name of place.budget.keys()) {
    if (!kept.has(name)) continue;
    try {
      const { dir, exists } = resolveSessionDir(place.root, name);
      const done = exists ? compressSession(dir, name) : undefined;
      if (done) log.log("info", "session_compressed", { session_id: name, raw_bytes: done.raw, compressed_bytes: done.compressed });
    } catch (error) {
      // Left as it was (output.bin stays): the next sweep tries again.
      log.log("warn", "compress_failed", { session_id: name, error: describeError(error) });
    }
  }
}

/**
 * The disk budget after the retention decisions: what retention removes (or would, in a dry run)
 * is out already, and the oldest ended sessions of the rest go while the total is over `max_total`
 * or the free space under `keep_free`. Their earlier `skip` outcome is replaced by the removal's.
 */
function enforceBudget(place: SweepPlace, outcomes: SweepOutcome[], storage: StoragePolicy, record: (o: SweepOutcome) => void): void {
  const gone = new Set(outcomes.filter((o) => o.cleanup_result === "remove").map((o) => o.session_id));
  const entries: BudgetEntry[] = [];
  let freed = 0;
  for (const { name, bytes } of entrySizes(place.root)) {
    if (name.startsWith(REMOVING_PREFIX)) continue;
    if (gone.has(name)) {
      freed += bytes; // a dry run's would-be removal: counted as done
      continue;
    }
    const seen = place.budget.get(name);
    entries.push({ name, bytes, removable: seen !== undefined, startedAt: seen ?? "" });
  }
  const filesystem = filesystemOf(place.root);
  const removals = planBudget(entries, { ...filesystem, free: filesystem.free + (place.dryRun ? freed : 0) }, storage);
  for (const removal of removals) {
    const at = outcomes.findIndex((o) => o.session_id === removal.name);
    if (at !== -1) outcomes.splice(at, 1);
    const base = { session_id: removal.name, bytes: removal.bytes, detail: removal.detail };
    try {
      place.remove(path.join(place.sessions, removal.name));
      record({ ...base, cleanup_result: "remove", cleanup_reason: removal.reason });
    } catch {
      record({ ...base, cleanup_result: "error", cleanup_reason: "remove_error" });
    }
  }
}

/** Whether the sessions fit `max_total` and the filesystem has `keep_free` free. */
function withinBudget(root: string, storage: StoragePolicy): boolean {
  const filesystem = filesystemOf(root);
  const { maxTotal, keepFree } = limitsOf(storage, filesystem);
  const total = entrySizes(root).reduce((sum, e) => sum + e.bytes, 0);
  return total <= maxTotal && filesystem.free >= keepFree;
}

/** Where a sweep looks, when, and how it removes (nothing, in a dry run). */
interface SweepPlace {
  readonly root: string;
  /** `<root>/sessions` */
  readonly sessions: string;
  readonly ttlSeconds: number;
  /** The sweep's clock, in epoch milliseconds. */
  readonly now: number;
  readonly dryRun: boolean;
  /** Whether retention removes anything (not in the budget-only check after a run). */
  readonly expire: boolean;
  readonly remove: (entry: string) => void;
  /** Sessions the budget may remove (readable, ended, kept by retention), with their start time. */
  readonly budget: Map<string, string>;
}

/**
 * One directory's outcome. Another sweep (a second `derun gc`, another derun's start) may remove
 * the same directory meanwhile: an entry found gone, or going, counts as removed (`removed_elsewhere`),
 * not as a failure. What a removal stopped halfway left (a killed sweep) is finished now.
 */
function sweepOne(place: SweepPlace, name: string): SweepOutcome {
  if (name.startsWith(REMOVING_PREFIX)) {
    try {
      place.remove(path.join(place.sessions, name));
      return { session_id: name, cleanup_result: "remove", cleanup_reason: "unfinished_removal" };
    } catch {
      return { session_id: name, cleanup_result: "error", cleanup_reason: "remove_error" };
    }
  }
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

function decide({ root, sessions, ttlSeconds, now, expire, remove, budget }: SweepPlace, name: string): SweepOutcome {
  const entry = path.join(sessions, name);
  const outcome = (cleanup_result: SweepOutcome["cleanup_result"], cleanup_reason: CleanupReason): SweepOutcome => ({
    session_id: name,
    cleanup_result,
    cleanup_reason,
  });
  const removeIf = (expired: boolean, reason: CleanupReason, skipReason: CleanupReason): SweepOutcome => {
    if (!expired || !expire) return outcome("skip", skipReason);
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
    const decided = removeIf(!(now < expiresAt), "expired", "not_expired");
    if (decided.cleanup_result === "skip") budget.set(name, facts.meta.started_at);
    return decided;
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
 * Remove a session directory so that no reader ever finds part of it: it is first renamed, in one
 * step, to a name no reader lists (`.removing-...`), then emptied. A sweep killed between the two
 * leaves that name, which the next sweep removes; two sweeps at once find it renamed or gone.
 */
export function removeSessionEntry(entry: string): void {
  const name = path.basename(entry);
  if (name.startsWith(REMOVING_PREFIX)) return removeWithoutFollowing(entry);
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(entry);
  } catch (e) {
    if (isMissing(e)) return;
    throw e;
  }
  if (!stat.isDirectory()) return removeWithoutFollowing(entry);
  const aside = path.join(path.dirname(entry), `${REMOVING_PREFIX}${name}.${process.pid}.${Date.now().toString(36)}`);
  try {
    fs.renameSync(entry, aside);
  } catch (e) {
    if (isMissing(e)) return; // another sweep took it
    throw e;
  }
  removeWithoutFollowing(aside);
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
