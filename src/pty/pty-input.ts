/**
 * Keys for the child, written on its PTY's non-blocking master: at once when the terminal's input
 * queue has room (a key, a short paste), the rest queued in order and written as the child reads
 * (a long paste into a program that reads slowly). Nothing is dropped or reordered; nothing blocks
 * derun's event loop.
 */
import { writeSync } from "node:fs";

/** How long a full input queue is left before derun looks again (the child reads it meanwhile). */
const RETRY_MS = 2;

export class PtyInput {
  readonly #queue: Uint8Array[] = [];
  /**
   * Shared with the key relay's thread (../io/key-relay.ts), which writes keys to the master itself
   * only while this is 0: one for a non-empty queue here, and one per chunk of keys the thread handed
   * over and `write` has not taken yet (the thread counts those up, {@link takeHandedOver} down).
   */
  readonly held = new Int32Array(new SharedArrayBuffer(4));
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(private readonly master: number) {}

  /** Writes `bytes` after everything written before. */
  write(bytes: Uint8Array): void {
    if (this.#closed || bytes.length === 0) return;
    // Copied when queued: the caller may reuse its buffer.
    if (this.#queue.length > 0) return void this.#queue.push(bytes.slice());
    const written = this.#writeSome(bytes);
    if (written < bytes.length) {
      this.#queue.push(bytes.slice(written));
      Atomics.add(this.held, 0, 1);
      this.#schedule();
    }
  }

  /** Keys the relay's thread could not write: written after everything before, as `write`. */
  takeHandedOver(bytes: Uint8Array): void {
    this.write(bytes); // counts the queue first, if it queues them: the thread never sees 0 between
    Atomics.sub(this.held, 0, 1);
  }

  /** Nothing more is written (the master is about to close); what is queued is dropped with it. */
  close(): void {
    this.#closed = true;
    if (this.#queue.length > 0) Atomics.sub(this.held, 0, 1);
    this.#queue.length = 0;
    clearTimeout(this.#timer);
  }

  #flush(): void {
    this.#timer = undefined;
    while (!this.#closed && this.#queue.length > 0) {
      const head = this.#queue[0]!;
      const written = this.#writeSome(head);
      if (this.#closed) return; // it failed: close() dropped the queue, and counted it off `held`
      if (written < head.length) {
        this.#queue[0] = head.subarray(written);
        return this.#schedule();
      }
      this.#queue.shift();
      if (this.#queue.length === 0) Atomics.sub(this.held, 0, 1);
    }
  }

  #schedule(): void {
    if (this.#timer === undefined && !this.#closed) this.#timer = setTimeout(() => this.#flush(), RETRY_MS);
  }

  /** Bytes the master took now: 0 when its queue is full (EAGAIN); all of them, dropped, once it failed otherwise (EIO: hung up). */
  #writeSome(bytes: Uint8Array): number {
    let total = 0;
    while (total < bytes.length) {
      try {
        total += writeSync(this.master, bytes, total, bytes.length - total);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EAGAIN") return total;
        // The child's terminal is gone (EIO, EBADF after close): as a terminal would, it takes no more.
        this.close();
        return bytes.length;
      }
    }
    return total;
  }
}
