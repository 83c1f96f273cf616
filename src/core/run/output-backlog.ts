/**
 * How far derun's output is behind its terminal, in time: the writer thread's ring may hold what the
 * terminal takes in BUDGET_SECONDS (measured), never less than MIN_BUDGET_BYTES; beyond that the
 * child's output is held back at its own terminal (the child blocks in its writes, as it would on a
 * slow terminal without derun) until the ring is down to half of it. So a Ctrl-C on a slow terminal
 * ends the command and derun within about that time, not after the whole ring (1 MiB: 16 s at
 * 64 KB/s), and the main thread never waits for room: keys, resizes and signals go on.
 */
import { CONSUMED, type RingProducer } from "../io/record-ring.ts";

const BUDGET_SECONDS = 0.25;
const MIN_BUDGET_BYTES = 32 * 1024;
/** The terminal's pace is measured over windows at least this long. */
const WINDOW_MS = 50;

export class OutputBacklog {
  #behind = false;
  /** Bytes per second the writer thread got out in the last window. */
  #rate = 0;
  #windowStart = performance.now();
  #windowReleased = 0;

  /** @param onChange told when the output falls behind (hold the child's output back) and catches up. */
  constructor(private readonly onChange: (behind: boolean) => void) {}

  /** After a commit: `released` is every byte the thread has taken out of this ring so far. */
  committed(producer: RingProducer, ringBytes: number, released: () => number): void {
    this.#measure(released());
    if (this.#behind || producer.queuedBytes <= this.#budget(ringBytes)) return;
    this.#behind = true;
    this.onChange(true);
    void this.#untilCaughtUp(producer, ringBytes, released);
  }

  /** The ring is gone (closed, or the main thread writes by itself): nothing is behind any more. */
  reset(): void {
    if (!this.#behind) return;
    this.#behind = false;
    this.onChange(false);
  }

  async #untilCaughtUp(producer: RingProducer, ringBytes: number, released: () => number): Promise<void> {
    while (this.#behind) {
      const seen = producer.counter(CONSUMED);
      if (producer.closed) return this.reset();
      this.#measure(released());
      if (producer.queuedBytes <= this.#budget(ringBytes) / 2) return this.reset();
      await producer.wait(CONSUMED, seen, WINDOW_MS);
    }
  }

  #budget(ringBytes: number): number {
    return Math.min(ringBytes, Math.max(MIN_BUDGET_BYTES, this.#rate * BUDGET_SECONDS));
  }

  #measure(released: number): void {
    const now = performance.now();
    if (now - this.#windowStart < WINDOW_MS) return;
    this.#rate = ((released - this.#windowReleased) * 1000) / (now - this.#windowStart);
    this.#windowStart = now;
    this.#windowReleased = released;
  }
}
