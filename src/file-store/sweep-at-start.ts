/**
 * The retention sweep at `derun run` start-up (docs/format.md, "Retention"), at most once a minute
 * per state root: a sweep reads every session directory, and sweeping on every start made start-up
 * grow with the number of sessions (a day of running every command through derun records hundreds).
 * A stamp file's mtime remembers the last sweep across processes; it is touched before sweeping so
 * concurrent starts do not all sweep. The run's exit never waits for it: `signal` stops it, and the
 * caller hands what is left to a process of its own (see src/cli/start-run.ts).
 */
import { closeSync, constants, existsSync, futimesSync, statSync } from "node:fs";
import { join } from "node:path";
import { describeError } from "../core/errors.ts";
import type { Logger } from "../core/log.ts";
import type { Store } from "../core/store.ts";
import { openRegular } from "../safe-fs/index.ts";

const START_SWEEP_INTERVAL_MS = 60_000;
const STAMP = "last-sweep";

/** What a start-up sweep did: nothing (swept a moment ago), all of it, or stopped by its signal before the end. */
export type StartSweep = "skipped" | "done" | "stopped";

/**
 * Sweep unless another derun did so within the last minute. Never throws: GC never stops a run.
 * `ttlSeconds` is the sweep's TTL (docs/format.md, "Retention"): the run's own retention, by which
 * unreadable directories (and sessions without a retention of their own) expire.
 */
export async function sweepAtStart(
  store: Store,
  log: Logger,
  ttlSeconds: number,
  options: { readonly now?: number; readonly signal?: AbortSignal } = {},
): Promise<StartSweep> {
  const now = options.now ?? Date.now();
  const stamp = join(store.root, STAMP);
  try {
    // The usual case, one syscall: swept a moment ago.
    if (now - statSync(stamp).mtimeMs < START_SWEEP_INTERVAL_MS) return "skipped";
  } catch {
    if (!existsSync(store.root)) return "skipped"; // nothing was ever recorded here
    // never swept (or unreadable): sweep
  }
  try {
    touchStamp(stamp, now);
  } catch (error) {
    // A stamp that cannot be written (a FIFO, a directory, no permission) costs one sweep per start.
    log.log("warn", "sweep_stamp_failed", { error: describeError(error) });
  }
  try {
    await store.sweep({ ttlSeconds, now: new Date(now), ...(options.signal ? { signal: options.signal } : {}) });
  } catch (error) {
    if (options.signal?.aborted) return "stopped";
    log.log("warn", "sweep_failed", { error: describeError(error) });
  }
  return "done";
}

/** Create or touch the stamp (a regular file, never opened through a link) with mtime `now`. */
function touchStamp(stamp: string, now: number): void {
  const fd = openRegular(stamp, constants.O_WRONLY | constants.O_CREAT, { code: "unsafe_path", mode: 0o600 });
  try {
    futimesSync(fd, now / 1000, now / 1000);
  } finally {
    closeSync(fd);
  }
}
