/**
 * The reader thread of the child's output streams (see ./stream-reader.ts): waits until one is
 * readable, reads it straight into the shared ring, and repeats, taking the streams in the order
 * they became readable, so the ring's order is the child's order across streams too. A stream
 * ends at EOF, at a read error (EIO: a stream PTY whose child side is gone), or when the main
 * thread asks (its flag, plus a byte on `wakeFd` so a wait in progress returns at once); each end
 * is a record of length 0.
 *
 * The main thread is woken once per batch, not per read: while more is readable at once the thread
 * keeps reading (up to PUBLISH_BYTES), and wakes it when the streams pause or the batch is full.
 * Each wake-up of the main thread costs it memory that Bun gives back only slowly
 * (Atomics.waitAsync: +8 MB over 10 000 waits, measured), so fewer is flatter.
 */
import { readSync } from "node:fs";
import { CONSUMED, RingProducer } from "./record-ring.ts";
import { openReadiness } from "./readiness.ts";
import { STOP_REQUESTED, type StreamReaderInit } from "./stream-reader.ts";

declare const self: Worker;

/** Wake the main thread at least every this many bytes. */
const PUBLISH_BYTES = 512 * 1024;

self.onmessage = (event: MessageEvent<StreamReaderInit>) => {
  const { fds, wakeFd } = event.data;
  const ring = new RingProducer(event.data.ring);
  // Before claiming: if this fails, the main thread falls back to Bun's streams, nothing read.
  const readiness = openReadiness([...fds, wakeFd]);
  // Too late: the main thread already reads by itself.
  if (!ring.claim(1)) return readiness.close();
  const wakeTag = fds.length;
  const open = new Set(fds.map((_, tag) => tag));
  const wakeBuffer = new Uint8Array(64);
  /** Bytes committed that the main thread was not woken for yet. */
  let unpublished = 0;
  const publish = () => {
    if (unpublished === 0) return;
    ring.publish();
    unpublished = 0;
  };

  /** Ends a stream: no more reading of it, and its end record (which needs a record's room). */
  const end = (tag: number) => {
    open.delete(tag);
    readiness.remove(tag);
    waitForRoom(() => false);
    ring.commit(tag, 0); // wakes the main thread, for this and anything before it
    unpublished = 0;
  };
  const stopRequested = () => {
    for (const tag of open) if (ring.flag(tag) === STOP_REQUESTED) return true;
    return false;
  };
  /** Until the ring has room, or `interrupt()`; returns the room (0 when interrupted). */
  const waitForRoom = (interrupt: () => boolean): number => {
    for (;;) {
      const seen = ring.counter(CONSUMED); // before looking: a release after this changes it
      const room = ring.room();
      if (room > 0) return room;
      if (interrupt()) return 0;
      // Full: the main thread has not taken the bytes yet. Back-pressure reaches the child here.
      publish();
      ring.waitSync(CONSUMED, seen);
    }
  };

  try {
    while (open.size > 0) {
      for (const tag of open) if (ring.flag(tag) === STOP_REQUESTED) end(tag); // deleting while iterating a Set is safe
      if (open.size === 0) break;
      // Nothing more readable right now: the main thread gets what it has not seen, then wait.
      let ready = unpublished > 0 ? readiness.wait(0) : readiness.wait(-1);
      if (ready.length === 0 && unpublished > 0) {
        publish();
        ready = readiness.wait(-1);
      }
      for (const tag of ready) {
        if (tag === wakeTag) {
          try {
            readSync(wakeFd, wakeBuffer, 0, wakeBuffer.length, null);
          } catch {
            // EAGAIN: another wait already took the byte.
          }
          continue;
        }
        if (!open.has(tag)) continue;
        const room = waitForRoom(stopRequested);
        if (room === 0) break; // a stop came in: handle it first
        let length: number;
        try {
          length = readSync(fds[tag]!, ring.region(room), 0, room, null);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === "EAGAIN") continue;
          end(tag); // EIO and the like end the stream, as EOF does
          continue;
        }
        if (length === 0) {
          end(tag);
          continue;
        }
        ring.commitQuietly(tag, length);
        unpublished += length;
        if (unpublished >= PUBLISH_BYTES) publish();
      }
    }
  } finally {
    readiness.close();
    ring.close(); // wakes the main thread for anything unpublished too
  }
};
