/**
 * What the views read: a window of output.bin (bytes plus the offset of their first byte) and the
 * index records that say which channel wrote which bytes. The query layer does the reading.
 */
import type { DerunOutputChannel } from "../core/enums.ts";
import type { IndexRecord } from "../core/store.ts";

/** Consecutive bytes of output.bin: `bytes[0]` is the byte at `offset`. */
export interface ByteWindow {
  readonly offset: number;
  readonly bytes: Uint8Array;
}

/** The part of an index record the views need. */
export type ChannelSpan = Pick<IndexRecord, "offset" | "length" | "channel">;

/** Bytes of one channel: `bytes[0]` is the byte at `offset` of output.bin. */
export interface ChannelChunk {
  readonly channel: DerunOutputChannel;
  readonly offset: number;
  readonly bytes: Uint8Array;
}

/** Index of the first span that ends after `offset` (spans sorted by offset, as index.jsonl is). */
export function firstSpanEndingAfter(spans: readonly ChannelSpan[], offset: number): number {
  let lo = 0;
  let hi = spans.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const span = spans[mid]!;
    if (span.offset + span.length > offset) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * The window cut along its records, in file order, each piece a view (no copy) of the window.
 * Bytes of the window that no record covers are skipped; so are records of other channels when
 * `channel` is given.
 */
export function* chunksOf(window: ByteWindow, spans: readonly ChannelSpan[], channel?: DerunOutputChannel): Generator<ChannelChunk> {
  const end = window.offset + window.bytes.length;
  for (let i = firstSpanEndingAfter(spans, window.offset); i < spans.length; i++) {
    const span = spans[i]!;
    if (span.offset >= end) return;
    if (channel !== undefined && span.channel !== channel) continue;
    const from = Math.max(span.offset, window.offset);
    const to = Math.min(span.offset + span.length, end);
    yield { channel: span.channel, offset: from, bytes: window.bytes.subarray(from - window.offset, to - window.offset) };
  }
}
