/**
 * How fast derun's own terminal takes the output, as the writer thread's progress shows it, and
 * what follows from that pace (./output-writer.ts): how much may be queued for the terminal (about a
 * tenth of a second of it), how far a transport may read ahead (core/transport.ts OutputFlow), and
 * whether small writes may still go straight out on the main thread.
 */

/** The least backlog a slow terminal is allowed, and the share of its pace a backlog may hold. */
const PACED_MIN_BYTES = 8 * 1024;
const PACED_SECONDS = 0.1;
/** The least a transport may read ahead: two of a PTY's 4 KiB reads. */
const READ_AHEAD_MIN_BYTES = 8 * 1024;
/** A pace is read over at least this long between two looks (shorter spans are mostly scheduling noise). */
const PACE_SAMPLE_MS = 20;
/**
 * A write on the main thread that took longer than this waited for the terminal to take it: from
 * then on chunks go through the thread, until the terminal shows it keeps up with a full budget.
 */
const SLOW_DIRECT_WRITE_MS = 5;

export class TerminalPace {
  /**
   * Bytes a new chunk may find queued without waiting: the least until the terminal shows its pace
   * (a slow one fills the ring before its first write returns), then a tenth of a second of it.
   */
  #budget: number;
  /** A direct write waited for the terminal; cleared once the budget is back at its most. */
  #slow = false;
  #look = { at: 0, released: 0, queued: 0 };

  /**
   * @param maxBytes the writer's ring: no backlog is larger
   * @param minBacklogBytes the least backlog (default PACED_MIN_BYTES; tests raise it)
   */
  constructor(
    private readonly maxBytes: number,
    private readonly minBacklogBytes = PACED_MIN_BYTES,
  ) {
    this.#budget = minBacklogBytes;
  }

  /** Bytes a new chunk may find queued without waiting. */
  get budget(): number {
    return this.#budget;
  }

  /** A small write may go straight out on the main thread: none was seen to wait for the terminal. */
  get directWritesAllowed(): boolean {
    return !this.#slow;
  }

  /** What a transport may read ahead (OutputFlow.readAhead): a quarter of the backlog; no bound while the terminal keeps up with it all. */
  get readAhead(): number {
    if (this.#budget >= this.maxBytes) return Number.POSITIVE_INFINITY;
    return Math.max(READ_AHEAD_MIN_BYTES, Math.round(this.#budget / 4));
  }

  /** A fresh ring: the next look starts from nothing written. */
  restart(): void {
    this.#look = { at: performance.now(), released: 0, queued: 0 };
  }

  /** A write on the main thread took `ms`: one that waited says the terminal is slow. */
  directWriteTook(ms: number): void {
    if (ms > SLOW_DIRECT_WRITE_MS) this.#slow = true;
  }

  /**
   * What the thread wrote since the last look (`released` of all bytes committed to the ring, with
   * `queued` still there), over the time since: the terminal's pace when bytes were queued at both
   * looks (the thread was busy). The backlog allowed follows the pace, and doubles each time the
   * thread is found with nothing left to write.
   */
  look(released: number, queued: number): void {
    const now = performance.now();
    const look = this.#look;
    if (now - look.at < PACE_SAMPLE_MS) return;
    const written = released - look.released;
    // A stopped terminal (Ctrl-S, a suspended reader) takes nothing: that says nothing of its pace.
    if (look.queued > 0 && queued > 0 && written > 0) {
      const pace = (written * 1000) / (now - look.at);
      this.#budget = Math.min(this.maxBytes, Math.max(this.minBacklogBytes, Math.round(pace * PACED_SECONDS)));
    } else if (queued === 0) {
      // The terminal kept up: let more be queued, step by step (a burst must not fill the ring).
      this.#budget = Math.min(this.maxBytes, this.#budget * 2);
      if (this.#budget === this.maxBytes) this.#slow = false;
    }
    this.#look = { at: now, released, queued };
  }
}
