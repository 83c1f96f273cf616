/**
 * What the views read: a window of output.bin (bytes plus the offset of their first byte) and the
 * index records that say which channel wrote which bytes. The query layer does the reading. The
 * records come as {@link RecordSpans} (the store's columns, or a range of them) so a view never
 * needs an object per record; {@link spanArray} wraps an array of them for small inputs and tests.
 */
import { DerunOutputChannel } from "../core/enums.ts";
import type { IndexRecord, RecordSpans } from "../core/store.ts";

export type { RecordSpans } from "../core/store.ts";

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

const CHANNELS: readonly DerunOutputChannel[] = Object.values(DerunOutputChannel);

/**
 * The window cut along its records, in file order, each piece a view (no copy) of the window.
 * Bytes of the window that no record covers are skipped; so are records of other channels when
 * `channel` is given.
 */
export function* chunksOf(window: ByteWindow, spans: RecordSpans, channel?: DerunOutputChannel): Generator<ChannelChunk> {
  const end = window.offset + window.bytes.length;
  for (let i = spans.firstEndingAfter(window.offset); i < spans.count; i++) {
    const offset = spans.offset(i);
    if (offset >= end) return;
    const c = spans.channel(i);
    if (channel !== undefined && c !== channel) continue;
    const from = Math.max(offset, window.offset);
    const to = Math.min(spans.end(i), end);
    yield { channel: c, offset: from, bytes: window.bytes.subarray(from - window.offset, to - window.offset) };
  }
}

/** The channels that have records, in the order of their first one. */
export function channelsOf(spans: RecordSpans): DerunOutputChannel[] {
  const firsts: Array<[DerunOutputChannel, number]> = [];
  for (const channel of CHANNELS) {
    const first = spans.firstOf(channel);
    if (first >= 0) firsts.push([channel, first]);
  }
  return firsts.sort((a, b) => a[1] - b[1]).map(([channel]) => channel);
}

/** Records `[from, to)` of `spans`, numbered from 0. */
export function spanRange(spans: RecordSpans, from: number, to: number): RecordSpans {
  const count = Math.max(0, to - from);
  // The range's records start before record `to` does (or before the end of the last, when records
  // are added later), but for empty ones at that very offset.
  const bound = to < spans.count ? spans.offset(to) : to > 0 ? spans.end(to - 1) : 0;
  return {
    count,
    offset: (i) => spans.offset(from + i),
    end: (i) => spans.end(from + i),
    channel: (i) => spans.channel(from + i),
    firstEndingAfter: (offset) => Math.min(count, Math.max(0, spans.firstEndingAfter(offset) - from)),
    lastOf: (channel, before) => {
      // Empty records may end the range at `bound` itself: the search below stops short of them.
      if (before > bound)
        for (let j = to - 1; j >= from && spans.offset(j) === bound; j--) if (spans.channel(j) === channel) return j - from;
      const i = spans.lastOf(channel, Math.min(before, bound));
      return i >= from && i < to ? i - from : -1;
    },
    firstOf: (channel, after = 0) => {
      const i = spans.firstOf(channel, from + after);
      return i >= 0 && i < to ? i - from : -1;
    },
  };
}

/** Records in hand (sorted by offset, as index.jsonl is) as {@link RecordSpans}. */
export function spanArray(records: readonly ChannelSpan[]): RecordSpans {
  const firstEndingAfter = (offset: number) => {
    let lo = 0;
    let hi = records.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const r = records[mid]!;
      if (r.offset + r.length > offset) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
  return {
    count: records.length,
    offset: (i) => records[i]!.offset,
    end: (i) => records[i]!.offset + records[i]!.length,
    channel: (i) => records[i]!.channel,
    firstEndingAfter,
    lastOf: (channel, before) => {
      for (let i = Math.min(records.length, firstEndingAfter(before - 1) + 1) - 1; i >= 0; i--) {
        if (records[i]!.channel === channel && records[i]!.offset < before) return i;
      }
      return -1;
    },
    firstOf: (channel, from = 0) => {
      for (let i = from; i < records.length; i++) if (records[i]!.channel === channel) return i;
      return -1;
    },
  };
}
