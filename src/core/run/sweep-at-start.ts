/**
 * The retention sweep at `derun run` start-up (docs/format.md, "Retention": expired sessions are cleaned up when
 * `derun run` starts), at most once a minute per state root.
 *
 * A sweep reads every session directory, so sweeping on every start made start-up grow with the
 * number of recorded sessions (measured: 19 ms with 25 sessions, 38 ms with 525, and a day of
 * running every command through derun records hundreds). A stamp file's mtime remembers the last
 * sweep across processes; it is touched before sweeping so concurrent starts do not all sweep.
 */
import { closeSync, constants, existsSync, futimesSync, statSync } from "node:fs";
import { join } from "node:path";
import { describeError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { Store } from "../store.ts";
import { openRegular } from "../safe-fs/index.ts";

const START_SWEEP_INTERVAL_MS = 60_000;
const STAMP = "last-sweep";

/**
 * Sweep unless another derun did so within the last minute. Never throws: GC never stops a run.
 * `ttlSeconds` is the sweep TTL of the contract: the run's own retention, by which unreadable
 * directories (and sessions without a retention of their own) expire.
 */
export async function sweepAtStart(store: Store, log: Logger, ttlSeconds: number, now: number = Date.now()): Promise<void> {
  const stamp = join(store.root, STAMP);
  try {
    // The usual case, one syscall: swept a moment ago.
    if (now - statSync(stamp).mtimeMs < START_SWEEP_INTERVAL_MS) return;
  } catch {
    if (!existsSync(store.root)) return; // nothing was ever recorded here
    // never swept (or unreadable): sweep
  }
  try {
    touchStamp(stamp, now);
  } catch (error) {
    // A stamp that cannot be written (a FIFO, a directory, no permission) costs one sweep per start.
    log.log("warn", "sweep_stamp_failed", { error: describeError(error) });
  }
  try {
    await store.sweep({ ttlSeconds, now: new Date(now) });
  } catch (error) {
    log.log("warn", "sweep_failed", { error: describeError(error) });
  }
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
