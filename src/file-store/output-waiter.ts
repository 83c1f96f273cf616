/**
 * Long-poll support for `waitForOutput`. All waiters on one session share one `fs.watch` of its
 * directory (inotify on Linux), reference-counted and closed when the last waiter leaves, and one
 * progress check: a file event reads the session's facts once, then wakes every waiter whose
 * cursor is below the committed end (or all of them once the session is over), so N agents
 * waiting on a busy session cost one check per chunk, not N. One slow safety poll, shared by all
 * sessions, re-checks every watched directory in case a notification was missed or the writer
 * died (a SIGKILLed derun leaves no file change behind).
 */
import * as fs from "node:fs";

/** What one check of a session found. */
export interface WaitProgress {
  /** Bytes covered by complete index lines. */
  readonly committed: number;
  /** Whether the recording derun is still at work (more bytes may come). */
  readonly live: boolean;
}

/** Reads a session's progress; a rejection (session gone or unreadable) wakes all its waiters. */
export type ProgressCheck = () => Promise<WaitProgress>;

interface Waiter {
  readonly cursor: number;
  readonly finish: () => void;
}

interface WatchedDir {
  readonly watcher: fs.FSWatcher | undefined;
  /** The check of this directory's session: every waiter's check would read the same files. */
  readonly check: ProgressCheck;
  readonly waiters: Set<Waiter>;
  /** Waiters that came since the last check began: the next check is their first. */
  arrivals: Waiter[];
  running: boolean;
  again: boolean;
}

export interface OutputWaiterOptions {
  /** How often the shared safety poll re-checks every watched directory. */
  readonly pollIntervalMs?: number;
  /**
   * Called once per wait that parks: the first check after it came found nothing to wake it for.
   * From then on only a change, the safety poll, its timeout or its signal ends it (tests wait on this).
   */
  readonly onParked?: (dir: string) => void;
}

/** The shared watchers and safety poll of one store. */
export class OutputWaiter {
  private readonly dirs = new Map<string, WatchedDir>();
  private poll: ReturnType<typeof setInterval> | undefined;
  private readonly pollIntervalMs: number;
  private readonly onParked: ((dir: string) => void) | undefined;

  constructor(options: OutputWaiterOptions = {}) {
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.onParked = options.onParked;
  }

  /**
   * Resolve once committed output passes `cursor` or the session is over (as `check` of session
   * directory `dir` reports), after `timeoutMs`, or when `signal` aborts. A check runs once the
   * watch is in place, so a change between the caller's own check and the watch is seen.
   */
  wait(dir: string, cursor: number, check: ProgressCheck, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      let timer: ReturnType<typeof setTimeout> | undefined;
      let left = false;
      const onAbort = () => waiter.finish();
      const waiter: Waiter = {
        cursor,
        finish: () => {
          if (left) return;
          left = true;
          this.remove(dir, waiter);
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      this.add(dir, waiter, check);
      timer = setTimeout(waiter.finish, Math.max(0, timeoutMs));
      signal?.addEventListener("abort", onAbort, { once: true });
      this.checkDir(dir);
    });
  }

  private add(dir: string, waiter: Waiter, check: ProgressCheck): void {
    let entry = this.dirs.get(dir);
    if (!entry) {
      entry = { watcher: this.watch(dir), check, waiters: new Set(), arrivals: [], running: false, again: false };
      this.dirs.set(dir, entry);
    }
    entry.waiters.add(waiter);
    entry.arrivals.push(waiter);
    this.poll ??= setInterval(() => this.checkAll(), this.pollIntervalMs);
  }

  private remove(dir: string, waiter: Waiter): void {
    const entry = this.dirs.get(dir);
    if (!entry?.waiters.delete(waiter)) return;
    if (entry.waiters.size === 0) {
      entry.watcher?.close();
      this.dirs.delete(dir);
    }
    if (this.dirs.size === 0 && this.poll) {
      clearInterval(this.poll);
      this.poll = undefined;
    }
  }

  private watch(dir: string): fs.FSWatcher | undefined {
    try {
      const watcher = fs.watch(dir, { persistent: false }, () => this.checkDir(dir));
      // The directory went away (retention) or the watch broke: let the checks decide, the poll remains.
      watcher.on("error", () => this.checkDir(dir));
      return watcher;
    } catch {
      return undefined; // no notification available: the safety poll still wakes the waiters
    }
  }

  private checkAll(): void {
    for (const dir of [...this.dirs.keys()]) this.checkDir(dir);
  }

  /** One check at a time per directory; events during a check cause exactly one more. */
  private checkDir(dir: string): void {
    const entry = this.dirs.get(dir);
    if (!entry) return;
    if (entry.running) {
      entry.again = true;
      return;
    }
    entry.running = true;
    entry.again = false;
    const arrivals = entry.arrivals;
    entry.arrivals = [];
    entry
      .check()
      .then(
        ({ committed, live }) =>
          (waiter: Waiter) =>
            !live || committed > waiter.cursor,
        () => () => true,
      )
      .then((done) => {
        entry.running = false;
        for (const waiter of [...entry.waiters]) if (done(waiter)) waiter.finish();
        for (const waiter of arrivals) if (entry.waiters.has(waiter)) this.onParked?.(dir);
        if (entry.again && this.dirs.get(dir) === entry) this.checkDir(dir);
      });
  }
}
