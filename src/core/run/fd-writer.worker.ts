/**
 * The writer thread of one of derun's output fds (see fd-writer.ts): waits for bytes in the shared
 * ring and writes them, blocking, in ring order. It never runs JS event-loop work while it waits,
 * so its only job cannot be delayed by anything on the main thread, nor delay it.
 */
import { writeAllSync } from "../write-all.ts";
import { BROKEN_PIPE, CLOSED, FAILURE, NO_FAILURE, OTHER_FAILURE, PENDING, STARTED, type FdRingInit } from "./fd-ring.ts";

declare const self: Worker;

// Started once per fd with its ring; returns (and is terminated by the main thread) once closed.
self.onmessage = (event: MessageEvent<FdRingInit>) => {
  const { fd } = event.data;
  const control = new Int32Array(event.data.control);
  const data = new Uint8Array(event.data.data);
  // Too late: the main thread already writes by itself.
  if (Atomics.compareExchange(control, STARTED, 0, 1) !== 0) return;
  let position = 0;
  for (;;) {
    const pending = Atomics.load(control, PENDING);
    if (pending === 0) {
      if (Atomics.load(control, CLOSED) === 1) break;
      Atomics.wait(control, PENDING, 0);
      continue;
    }
    // The contiguous part of what is pending: the ring may wrap.
    const length = Math.min(pending, data.length - position);
    if (Atomics.load(control, FAILURE) === NO_FAILURE) {
      try {
        writeAllSync(fd, data.subarray(position, position + length));
      } catch (error) {
        // From now on the reader is gone: discard, so the producer never blocks on a dead fd.
        const failure = (error as NodeJS.ErrnoException).code === "EPIPE" ? BROKEN_PIPE : OTHER_FAILURE;
        Atomics.store(control, FAILURE, failure);
      }
    }
    position = (position + length) % data.length;
    Atomics.sub(control, PENDING, length);
    Atomics.notify(control, PENDING);
  }
};
