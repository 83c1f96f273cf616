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

/** Tracks output activity so the post-exit drain can tell a quiet stream from a slow reader. */
export class DrainWindow {
  #lastActivity = performance.now();

  constructor(
    private readonly idleMs: number = POST_EXIT_IDLE_MS,
    private readonly maxMs: number = POST_EXIT_MAX_MS,
  ) {}

  /** Call for every chunk delivered. Cheap: it is on the hot path. */
  activity(): void {
    this.#lastActivity = performance.now();
  }

  /**
   * Call once the child has exited. Resolves `true` when `streamEnd` resolves, `false` when the
   * stream has been quiet for `idleMs` or `maxMs` have passed since the call.
   */
  async drain(streamEnd: Promise<unknown>): Promise<boolean> {
    const started = performance.now();
    const deadline = started + this.maxMs;
    for (;;) {
      const quietAt = Math.max(this.#lastActivity, started) + this.idleMs;
      const wakeAt = Math.min(quietAt, deadline);
      const now = performance.now();
      if (now >= wakeAt) return false;
      if (await waitForEndWithin(streamEnd, wakeAt - now)) return true;
    }
  }
}

/**
 * Resolves when `streamEnd` resolves or `ms` have passed, whichever is first; `true` when the
 * stream ended in time. The timer never keeps the event loop alive after the race is decided.
 */
async function waitForEndWithin(streamEnd: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([streamEnd.then(() => true as const), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
