/**
 * The bounded drain after a child has exited, shared by the built-in transports. The output stream
 * normally ends at once (the kernel hangs up a PTY when its session leader exits; a pipe reaches
 * EOF when its last writer closes), but a background grandchild that inherited it can hold it open
 * for ever, and derun must end with its child. So reading goes on while output keeps coming, and
 * stops once the stream has been quiet for a while, or at a hard cap. An idle window, not a fixed
 * one: a reader scheduled late on a loaded machine must never cut off what the child wrote before
 * it exited. Nor can quiet be judged by deliveries alone: a reader thread that has not run for the
 * idle window, or derun's own terminal taking nothing for a while (an ssh link that stalls, a
 * scrolled-back pane), leaves the child's last bytes unread, and stopping the reader then drops them
 * from the screen and the recording. So a transport that can tell says whether bytes are still on
 * their way ({@link DrainProbes}).
 */

/** Give up once the stream has delivered nothing for this long after the exit. */
const POST_EXIT_IDLE_MS = 200;
/** Give up after this long in any case, so a grandchild that never stops writing cannot hold derun. */
const POST_EXIT_MAX_MS = 3000;
/**
 * Of the time derun's terminal holds the output while still taking some (a serial line, a slow link),
 * this much at most is not counted toward the cap: enough for what the child left queued at its exit
 * (a kernel buffer and derun's read-ahead) to pass a slow terminal, bounded because behind it a
 * grandchild may write for ever.
 */
const POST_EXIT_SLOW_HOLD_MS = 30_000;

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

/** What a transport can tell the drain about the bytes after the exit (each looked at on every check). */
export interface DrainProbes {
  /**
   * Bytes the child wrote are still on their way: unread in the stream, or read and not yet handed
   * over. The stream is not quiet then, however long since the last delivery (up to the cap).
   */
  readonly busy?: () => boolean;
  /**
   * derun's terminal takes nothing now (the output waits for it). The time it holds the output, with
   * nothing delivered nor taken meanwhile ({@link DrainWindow.activity}), does not count toward the
   * cap: a grandchild cannot write on then (the kernel holds it), and derun waits for that terminal
   * before it ends anyway. Behind a slow terminal that still takes some, a grandchild may write on for
   * ever: of such a hold only a bounded part (30 s in all) is not counted, then the cap ends the drain.
   */
  readonly held?: () => boolean;
}

/** Tracks output activity so the post-exit drain can tell a quiet stream from a slow reader. */
export class DrainWindow {
  readonly #idleMs: number;
  readonly #maxMs: number;
  readonly #clock: DrainClock;
  #lastActivity: number;
  /** The last {@link activity}: a delivery, or derun's terminal taking some (not a probe's word). */
  #lastMoved: number;

  constructor(options: DrainWindowOptions = {}) {
    this.#idleMs = options.idleMs ?? POST_EXIT_IDLE_MS;
    this.#maxMs = options.maxMs ?? POST_EXIT_MAX_MS;
    this.#clock = options.clock ?? systemClock;
    this.#lastActivity = this.#clock.now();
    this.#lastMoved = this.#lastActivity;
  }

  /** Call for every chunk delivered (and each time derun's terminal took some). Cheap: it is on the hot path. */
  activity(): void {
    this.#lastActivity = this.#clock.now();
    this.#lastMoved = this.#lastActivity;
  }

  /**
   * Call once the child has exited. Resolves `true` when `streamEnd` resolves, `false` when the
   * stream has been quiet for `idleMs` (and `probes.busy` says nothing is on its way), or `maxMs`
   * have passed since the call, not counting the time `probes.held` said the output waits.
   */
  async drain(streamEnd: Promise<unknown>, probes: DrainProbes = {}): Promise<boolean> {
    const started = this.#clock.now();
    let deadline = started + this.#maxMs;
    let lookedAt = started;
    let slowHeld = 0;
    for (;;) {
      const now = this.#clock.now();
      // Checked at most an idle window apart: a hold seen now is taken to have lasted since the last
      // look. While output still moves behind it, only POST_EXIT_SLOW_HOLD_MS of it in all.
      if (probes.held?.()) {
        const held = now - lookedAt;
        const moved = this.#lastMoved > lookedAt;
        const counted = moved ? Math.min(held, POST_EXIT_SLOW_HOLD_MS - slowHeld) : held;
        if (moved) slowHeld += counted;
        deadline += counted;
      }
      lookedAt = now;
      if (probes.busy?.()) this.#lastActivity = now;
      const quietAt = Math.max(this.#lastActivity, started) + this.#idleMs;
      const wakeAt = Math.min(quietAt, deadline);
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
