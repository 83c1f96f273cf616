/**
 * How a record in the reader's ring says that the reader thread wrote its bytes to the screen
 * itself (OutputStream.show, ./stream-reader.ts), and how that write went: marks above the stream's
 * tag, set by the thread (./stream-reader.worker.ts), read by the main thread to record the chunk
 * without writing it again.
 */
import type { ShowOutcome } from "../core/transport.ts";

/** The largest chunk the thread writes to the screen itself (as the output writer's direct writes). */
export const SHOW_MAX_BYTES = 16 * 1024;
/** Marks on a record's tag: the thread wrote its bytes to the stream's `show.fd` itself (and how it went). */
export const SHOWN = 0x100;
export const SHOW_BROKEN_PIPE = 0x200;
export const SHOW_FAILED = 0x400;
export const SHOW_SLOW = 0x800;
const TAG_BITS = 0xff;

/** The stream a record belongs to, marks or not. */
export const streamOf = (tag: number): number => tag & TAG_BITS;

export const isShown = (tag: number): boolean => (tag & SHOWN) !== 0;

/** How the thread's write of a shown record went. */
export function outcomeOf(tag: number): ShowOutcome {
  const slow = (tag & SHOW_SLOW) !== 0;
  if (tag & SHOW_BROKEN_PIPE) return { failure: "broken-pipe", slow };
  if (tag & SHOW_FAILED) return { failure: "other", slow };
  return { slow };
}
