/**
 * Long-poll support for `waitForOutput`. All waiters on one session share one `fs.watch` of its
 * directory (inotify on Linux), reference-counted and closed when the last waiter leaves; one slow
 * safety poll, shared by all sessions, re-checks every waiter in case a notification was missed or
 * the writer died (a SIGKILLed derun leaves no file change behind).
 */
import * as fs from "node:fs";

/** Resolves `true` when the waiter should return (new bytes, session over, or session gone). */
export type WaitCheck = () => Promise<boolean>;

interface Waiter {
  readonly check: WaitCheck;
  readonly finish: () => void;
  running: boolean;
  again: boolean;
  left: boolean;
}

interface WatchedDir {
  readonly watcher: fs.FSWatcher | undefined;
  readonly waiters: Set<Waiter>;
}

/** The shared watchers and safety poll of one store. */
export class OutputWaiter {
  private readonly dirs = new Map<string, WatchedDir>();
  private poll: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly pollIntervalMs = 1000) {}

  /**
   * Resolve once `check` says so, after `timeoutMs`, or when `signal` aborts. `check` runs first
   * after the watch is in place, so a change between the caller's own check and the watch is seen.
   */
  wait(dir: string, check: WaitCheck, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const onAbort = () => waiter.finish();
      const waiter: Waiter = {
        check,
        running: false,
        again: false,
        left: false,
        finish: () => {
          if (waiter.left) return;
          waiter.left = true;
          this.remove(dir, waiter);
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      this.add(dir, waiter);
      timer = setTimeout(waiter.finish, Math.max(0, timeoutMs));
      signal?.addEventListener("abort", onAbort, { once: true });
      this.run(waiter);
    });
  }

  private add(dir: string, waiter: Waiter): void {
    let entry = this.dirs.get(dir);
    if (!entry) {
      entry = { watcher: this.watch(dir), waiters: new Set() };
      this.dirs.set(dir, entry);
    }
    entry.waiters.add(waiter);
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

  private checkDir(dir: string): void {
    const entry = this.dirs.get(dir);
    if (entry) for (const waiter of entry.waiters) this.run(waiter);
  }

  private checkAll(): void {
    for (const dir of [...this.dirs.keys()]) this.checkDir(dir);
  }

  /** One check at a time per waiter; changes during a check cause exactly one more. */
  private run(waiter: Waiter): void {
    if (waiter.left) return;
    if (waiter.running) {
      waiter.again = true;
      return;
    }
    waiter.running = true;
    waiter.again = false;
    waiter
      .check()
      .catch(() => true)
      .then((done) => {
        waiter.running = false;
        if (done) waiter.finish();
        else if (waiter.again) this.run(waiter);
      });
  }
}
