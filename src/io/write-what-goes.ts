/**
 * Writes that never wait for a terminal: for the reader thread's own writes to derun's terminal
 * (./stream-reader.worker.ts), which also relays the keys, and a Ctrl-C must not wait behind the
 * screen. What the terminal does not take at once is left to a writer that may wait.
 */
import { constants, fstatSync, openSync, writeSync } from "node:fs";

/**
 * A non-blocking open of the terminal at `fd` (its own open file description: derun's stdout stays
 * as the shell left it), or `fd` itself where it is not a terminal (a new open of a file would write
 * at its own offset) or cannot be opened.
 */
export function nonBlockingTerminal(fd: number): number {
  if (fd < 0) return fd;
  try {
    if (!fstatSync(fd).isCharacterDevice()) return fd;
    return openSync(`/proc/self/fd/${fd}`, constants.O_WRONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch {
    return fd;
  }
}

/** Writes what `fd` takes now: all of `bytes` on a blocking fd, what fits on a non-blocking one. How much. */
export function writeWhatGoes(fd: number, bytes: Uint8Array): number {
  let written = 0;
  while (written < bytes.length) {
    try {
      written += writeSync(fd, bytes, written, bytes.length - written);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EAGAIN") break;
      if ((error as NodeJS.ErrnoException).code !== "EINTR") throw error;
    }
  }
  return written;
}
