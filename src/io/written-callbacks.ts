/**
 * The `written` callbacks of an OutputWriter (./output-writer.ts) whose bytes are in its ring: each
 * runs, in order, once the writer thread released its record (written, or dropped after a failure),
 * with the ring's own copy of the bytes, valid during the call.
 */
import { CONSUMED, type RingProducer } from "./record-ring.ts";

/** A record in the ring whose bytes wait for their `written` callback. */
interface Unsettled {
  /** Records committed up to and including this one: it is written once that many were released. */
  readonly ticket: number;
  readonly bytes: Uint8Array;
  readonly written: (bytes: Uint8Array) => void;
}

export class WrittenCallbacks {
  readonly #queue: Unsettled[] = [];
  #watching = false;

  /** @param released how many records the thread has released so far (Infinity: no ring, all are). */
  constructor(private readonly released: () => number) {}

  /** Some callback still waits for its record. */
  get waiting(): boolean {
    return this.#queue.length > 0;
  }

  /** `written(bytes)` once `ticket` records were released. */
  add(ticket: number, bytes: Uint8Array, written: (bytes: Uint8Array) => void): void {
    this.#queue.push({ ticket, bytes, written });
  }

  /** Run the callbacks of every record released so far, in order. */
  settle(): void {
    if (this.#queue.length === 0) return;
    const released = this.released();
    while (this.#queue.length > 0 && this.#queue[0]!.ticket <= released) {
      const { bytes, written } = this.#queue.shift()!;
      written(bytes);
    }
  }

  /**
   * While callbacks wait and `current()` (the ring is still the writer's), settle each time the
   * thread releases a record, without blocking the event loop.
   */
  watch(producer: RingProducer, current: () => boolean): void {
    if (this.#watching) return;
    this.#watching = true;
    void (async () => {
      while (this.#queue.length > 0 && current()) {
        const seen = producer.counter(CONSUMED);
        this.settle();
        if (this.#queue.length === 0) break;
        // Bounded, so a watcher never outlives its ring for long (close() settles the rest itself).
        await producer.wait(CONSUMED, seen, 1000);
      }
      this.#watching = false;
    })();
  }
}
