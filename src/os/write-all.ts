/**
 * Synchronous, complete writes: to derun's own stdout/stderr, and to the session's files.
 * Synchronous on purpose: a slow terminal or a full pipe blocks the writer (the main thread, or the
 * writer thread of io/output-writer.ts), and through it the reading of the child's output:
 * the back-pressure the child would feel without derun, and no unbounded buffering. It also keeps
 * the order of chunks the order of calls.
 */
import { writeSync } from "node:fs";

const retryLater = new Int32Array(new SharedArrayBuffer(4));

/**
 * Write every byte of `bytes` to `fd`, retrying short writes, and EAGAIN when a parent left the
 * descriptor non-blocking (waiting 1 ms between tries rather than spinning).
 */
export function writeAllSync(fd: number, bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(fd, bytes, offset, bytes.length - offset);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
      Atomics.wait(retryLater, 0, 0, 1);
    }
  }
}
