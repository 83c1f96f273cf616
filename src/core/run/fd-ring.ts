/**
 * The shared memory between derun's main thread and the thread that writes one of its output fds:
 * a fixed ring of bytes plus a few Int32 control slots. Fixed, so forwarding any amount of output
 * allocates nothing per chunk and memory stays flat.
 *
 * Protocol (one producer, one consumer):
 * - Only the producer adds to PENDING (after copying bytes in), only the consumer subtracts from it
 *   (after those bytes were written). Each keeps its own ring position; PENDING <= capacity, so no
 *   counter can overflow however much is forwarded.
 * - Either side wakes the other with Atomics.notify on PENDING.
 * - The consumer sets FAILURE once when a write fails and from then on discards instead of writing.
 * - The producer sets CLOSED when nothing more will come; the consumer ends once PENDING is 0.
 * - STARTED goes 0 -> 1 when the consumer starts, or 0 -> -1 when the producer gave up waiting for
 *   it and writes by itself; compare-and-swap, so exactly one of them ever consumes.
 */

/** Index of each control slot. */
export const PENDING = 0;
export const CLOSED = 1;
export const FAILURE = 2;
export const STARTED = 3;
const CONTROL_SLOTS = 4;

/** FAILURE values. */
export const NO_FAILURE = 0;
export const BROKEN_PIPE = 1;
export const OTHER_FAILURE = 2;

/** What the main thread hands the writer thread (structured-cloneable: shared buffers share). */
export interface FdRingInit {
  readonly fd: number;
  readonly control: SharedArrayBuffer;
  readonly data: SharedArrayBuffer;
}

export function createFdRing(fd: number, capacity: number): FdRingInit {
  return { fd, control: new SharedArrayBuffer(CONTROL_SLOTS * Int32Array.BYTES_PER_ELEMENT), data: new SharedArrayBuffer(capacity) };
}
