/**
 * derun's output writer thread (see output-writer.ts): takes records from the shared ring in order
 * and writes each, blocking, to the fd its tag stands for. It never runs event-loop work while it
 * waits, so nothing on the main thread can delay it, nor it the main thread.
 */
import { writeAllSync } from "../os/write-all.ts";
import { PRODUCED, RingConsumer } from "./record-ring.ts";
import { WRITE_FAILED, type OutputWriterInit } from "./output-writer.ts";

declare const self: Worker;

// Started once with its ring; returns (and is terminated by the main thread) once closed.
self.onmessage = (event: MessageEvent<OutputWriterInit>) => {
  const { fds } = event.data;
  const ring = new RingConsumer(event.data.ring);
  // Too late: the main thread already writes by itself.
  if (!ring.claim(1)) return;
  for (;;) {
    const seen = ring.counter(PRODUCED); // before looking: a commit after this changes it
    const record = ring.head();
    if (record === undefined) {
      if (ring.closed) return;
      ring.waitSync(PRODUCED, seen);
      continue;
    }
    // After a failure on its fd the record is dropped, so the main thread never waits on a dead fd.
    if (ring.flag(record.tag) === 0) {
      try {
        writeAllSync(fds[record.tag]!, record.bytes);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        ring.setFlag(record.tag, code === "EPIPE" ? WRITE_FAILED.brokenPipe : WRITE_FAILED.other);
      }
    }
    ring.release();
  }
};
