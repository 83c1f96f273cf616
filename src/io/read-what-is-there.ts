/**
 * Reading what a non-blocking stream holds right now on the calling thread (./stream-reader.ts):
 * for a stream stopped before it was read to the end, or one read by `readNow` because the child
 * exited before the reader thread started.
 */
import { readSync } from "node:fs";

/** The most a stream stopped before anyone read it gives up at once: a few times a pipe's capacity. */
const STOPPED_UNREAD_MAX_BYTES = 1024 * 1024;

/**
 * A stream stopped before it was read to the end (the thread had not started when the child exited
 * and the drain gave up waiting, as on a loaded machine; or Bun's reader had not caught up), or read
 * by `readNow`: what it holds now was written before and belongs in the output. Its fd is
 * non-blocking: read until it is empty (EAGAIN: "empty"), at its end (EOF, or EIO for a PTY:
 * "ended"), or at the bound ("more": a grandchild that keeps writing cannot hold derun).
 */
export function readWhatIsThere({
  fd,
  deliver,
}: {
  readonly fd: number;
  readonly deliver: (bytes: Uint8Array) => void;
}): "ended" | "empty" | "more" {
  // A Uint8Array, not a Buffer: a consumer's slice() must copy (Buffer's slice is a view).
  const buffer = new Uint8Array(64 * 1024);
  for (let total = 0; total < STOPPED_UNREAD_MAX_BYTES; ) {
    let length: number;
    try {
      length = readSync(fd, buffer, 0, Math.min(buffer.length, STOPPED_UNREAD_MAX_BYTES - total), null);
    } catch (error) {
      // EAGAIN: nothing more there now; anything else (EIO: a PTY whose writers are gone) ends it
      return (error as NodeJS.ErrnoException).code === "EAGAIN" ? "empty" : "ended";
    }
    if (length <= 0) return "ended";
    deliver(buffer.subarray(0, length));
    total += length;
  }
  return "more";
}
