/**
 * The bounded drain after a child has exited, shared by the built-in transports.
 *
 * Once the child is gone its output stream normally ends within a millisecond or two (the kernel
 * hangs up a PTY when its session leader exits; a pipe reaches EOF when the last writer closes).
 * But a background grandchild that inherited a pipe can keep it open for ever, and derun must end
 * with its child. So after the exit we keep reading while output keeps coming, and give up on the
 * stream's end only after it has been quiet for a while, or after a hard cap.
 *
 * An idle window rather than a fixed one: on a loaded machine the reader may be scheduled late,
 * and bytes the child wrote before exiting must never be cut off just because we were slow.
 */

/** Give up once the stream has delivered nothing for this long after the exit. */
const POST_EXIT_IDLE_MS = 200;
/** Give up after this long in any case, so a grandchild that never stops writing cannot hold derun. */
const POST_EXIT_MAX_MS = 3000;

/** Time as a drain window reads it: the real clock, or a test's own that moves only when told. */
export interface DrainClock {
  /** Milliseconds since some fixed point. */
  now(): number;
  /** Calls `wake` once `ms` have passed; the function returned cancels that. */
  after(ms: number, wake: () => void): () => void;
}

/** The real clock: monotonic milliseconds and real timers (every drain's default). */
export const systemClock: DrainClock = {
  now: () => performance.now(),
  after(ms, wake) {
    const timer = setTimeout(wake, ms);
    return () => clearTimeout(timer);
  },
};

export interface DrainWindowOptions {
  /** Give up once the stream has been quiet this long after the exit (default 200 ms). */
  readonly idleMs?: number;
  /** Give up this long after the exit in any case (default 3000 ms). */
  readonly maxMs?: number;
  readonly clock?: DrainClock;
}

/** Tracks output activity so the post-exit drain can tell a quiet stream from a slow reader. */
export class DrainWindow {
  readonly #idleMs: number;
  readonly #maxMs: number;
  readonly #clock: DrainClock;
  #lastActivity: number;

  constructor(options: DrainWindowOptions = {}) {
    this.#idleMs = options.idleMs ?? POST_EXIT_IDLE_MS;
    this.#maxMs = options.maxMs ?? POST_EXIT_MAX_MS;
    this.#clock = options.clock ?? systemClock;
    this.#lastActivity = this.#clock.now();
  }

  /** Call for every chunk delivered. Cheap: it is on the hot path. */
  activity(): void {
    this.#lastActivity = this.#clock.now();
  }

  /**
   * Call once the child has exited. Resolves `true` when `streamEnd` resolves, `false` when the
   * stream has been quiet for `idleMs` or `maxMs` have passed since the call.
   */
  async drain(streamEnd: Promise<unknown>): Promise<boolean> {
    const started = this.#clock.now();
    const deadline = started + this.#maxMs;
    for (;;) {
      const quietAt = Math.max(this.#lastActivity, started) + this.#idleMs;
      const wakeAt = Math.min(quietAt, deadline);
      const now = this.#clock.now();
      if (now >= wakeAt) return false;
      if (await this.#endWithin(streamEnd, wakeAt - now)) return true;
    }
  }

  /**
   * Resolves when `streamEnd` resolves or `ms` have passed, whichever is first; `true` when the
   * stream ended in time. The timer never keeps the event loop alive after the race is decided.
   */
  async #endWithin(streamEnd: Promise<unknown>, ms: number): Promise<boolean> {
    let cancel: (() => void) | undefined;
    const timedOut = new Promise<false>((resolve) => {
      cancel = this.#clock.after(ms, () => resolve(false));
    });
    try {
      return await Promise.race([streamEnd.then(() => true as const), timedOut]);
    } finally {
      cancel?.();
    }
  }
}
