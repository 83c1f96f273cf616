/**
 * A clock that moves only when the test says so, for code that takes one (the post-exit drain
 * window): what it does at a given time is then the same on an idle machine and a loaded one.
 */
import type { DrainClock } from "../../src/plugin-api/index.ts";

export interface ManualClock extends DrainClock {
  /** Moves time on by `ms`, waking every timer that is due (in order). */
  advance(ms: number): void;
  /** Resolves once a timer is pending: the code under test waits on this clock. */
  waited(): Promise<void>;
}

export function manualClock(): ManualClock {
  let now = 0;
  const timers = new Set<{ at: number; wake: () => void }>();
  const watchers = new Set<() => void>();
  return {
    now: () => now,
    after(ms, wake) {
      const timer = { at: now + ms, wake };
      timers.add(timer);
      for (const watcher of watchers) watcher();
      return () => timers.delete(timer);
    },
    advance(ms) {
      now += ms;
      for (const timer of [...timers].sort((a, b) => a.at - b.at)) {
        if (timer.at > now) break;
        timers.delete(timer);
        timer.wake();
      }
    },
    waited: () =>
      new Promise<void>((resolve) => {
        const watcher = () => {
          if (timers.size === 0) return;
          watchers.delete(watcher);
          resolve();
        };
        watchers.add(watcher);
        watcher();
      }),
  };
}

/**
 * Until the wall clock has left the millisecond it shows now, so that a timestamp taken after this
 * (ISO times carry milliseconds) is later than every one taken before: the order of two sessions'
 * `started_at` is then known.
 */
export async function nextMillisecond(): Promise<void> {
  const now = Date.now();
  while (Date.now() <= now) await Bun.sleep(1);
}
