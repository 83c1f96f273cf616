/**
 * The index records by column (IndexColumns) and the views of them (spanRange, spanArray) against
 * a plain array of records: positions, channels, timestamps as written, and the searches the views
 * use (first record ending after a point, a channel's last record before one, its first from one).
 */
import { describe, expect, test } from "bun:test";
import { DerunOutputChannel } from "../../src/core/enums.ts";
import { IndexColumns } from "../../src/file-store/index-records.ts";
import type { IndexRecord } from "../../src/core/store.ts";
import { spanArray, spanRange, type RecordSpans } from "../../src/views/window.ts";
import { random } from "../helpers/view-programs.ts";

const CHANNELS = Object.values(DerunOutputChannel);

/** Records from offset 0 without gaps, some empty, channels and timestamps mixed. */
function randomRecords(seed: number, count: number): IndexRecord[] {
  const next = random(seed);
  const records: IndexRecord[] = [];
  let offset = 0;
  let ms = Date.UTC(2026, 1, 28, 23, 59, 50);
  for (let i = 0; i < count; i++) {
    const length = next() < 0.1 ? 0 : 1 + Math.floor(next() * 50);
    ms += Math.floor(next() * 3000);
    const odd = next() < 0.05;
    // Timestamps as other writers might spell them: kept as written.
    const timestamp = odd
      ? ["2026-03-01T00:00:00Z", "2026-02-30T01:00:00.000Z", "yesterday", "2026-03-01T24:00:00.000Z", ""][i % 5]!
      : new Date(ms).toISOString();
    records.push({ offset, length, channel: CHANNELS[Math.floor(next() * CHANNELS.length)]!, timestamp });
    offset += length;
  }
  return records;
}

/** The same questions answered by walking the array. */
const naive = (records: readonly IndexRecord[]) => ({
  firstEndingAfter: (offset: number) => {
    const i = records.findIndex((r) => r.offset + r.length > offset);
    return i < 0 ? records.length : i;
  },
  lastOf: (channel: string, before: number) => records.findLastIndex((r) => r.channel === channel && r.offset < before),
  firstOf: (channel: string, from = 0) => records.findIndex((r, i) => i >= from && r.channel === channel),
});

function expectSame(spans: RecordSpans, records: readonly IndexRecord[], end: number): void {
  const want = naive(records);
  expect(spans.count).toBe(records.length);
  for (let i = 0; i < records.length; i++) {
    expect([spans.offset(i), spans.end(i), spans.channel(i)]).toEqual([
      records[i]!.offset,
      records[i]!.offset + records[i]!.length,
      records[i]!.channel,
    ]);
  }
  for (let at = 0; at <= end + 1; at++) {
    expect(spans.firstEndingAfter(at)).toBe(want.firstEndingAfter(at));
    for (const channel of CHANNELS) expect(spans.lastOf(channel, at)).toBe(want.lastOf(channel, at));
  }
  for (let i = 0; i <= records.length; i++)
    for (const channel of CHANNELS) expect(spans.firstOf(channel, i)).toBe(want.firstOf(channel, i));
}

describe("IndexColumns", () => {
  for (const seed of [1, 2, 3]) {
    test(`seed ${seed}: 300 records give back what was pushed, and find what a walk finds`, () => {
      const records = randomRecords(seed, 300);
      const columns = new IndexColumns();
      for (const r of records) columns.push(r.length, r.channel, r.timestamp);
      expectSame(columns, records, records.at(-1)!.offset + records.at(-1)!.length);
      for (let i = 0; i < records.length; i++) expect(columns.record(i)).toEqual(records[i]!);
    });
  }

  test("clear forgets every record, then fills again from offset 0", () => {
    const columns = new IndexColumns();
    for (const r of randomRecords(4, 100)) columns.push(r.length, r.channel, r.timestamp);
    columns.clear();
    expect([columns.count, columns.firstEndingAfter(0), columns.lastOf("stdout", 1e9), columns.firstOf("stdout")]).toEqual([0, 0, -1, -1]);
    const records = randomRecords(5, 40);
    for (const r of records) columns.push(r.length, r.channel, r.timestamp);
    for (let i = 0; i < records.length; i++) expect(columns.record(i)).toEqual(records[i]!);
  });
});

describe("spanRange and spanArray", () => {
  test("a range of records answers as the same records in an array, numbered from 0", () => {
    const records = randomRecords(6, 120);
    const columns = new IndexColumns();
    for (const r of records) columns.push(r.length, r.channel, r.timestamp);
    const end = records.at(-1)!.offset + records.at(-1)!.length;
    const next = random(7);
    for (let k = 0; k < 25; k++) {
      const from = Math.floor(next() * records.length);
      const to = from + Math.floor(next() * (records.length - from + 1));
      const part = records.slice(from, to);
      const range = spanRange(columns, from, to);
      expect(range.count).toBe(part.length);
      for (let i = 0; i < part.length; i++)
        expect([range.offset(i), range.end(i), range.channel(i)]).toEqual([
          part[i]!.offset,
          part[i]!.offset + part[i]!.length,
          part[i]!.channel,
        ]);
      const want = naive(part);
      for (let at = 0; at <= end + 1; at += 3) {
        for (const channel of CHANNELS) expect(range.lastOf(channel, at)).toBe(want.lastOf(channel, at));
        // Before the range, the first record that ends after a point is its first.
        expect(range.firstEndingAfter(at)).toBe(want.firstEndingAfter(at));
      }
      for (let i = 0; i <= part.length; i++)
        for (const channel of CHANNELS) expect(range.firstOf(channel, i)).toBe(want.firstOf(channel, i));
    }
  });

  test("spanArray answers as a walk over its array", () => {
    const records = randomRecords(8, 150);
    expectSame(spanArray(records), records, records.at(-1)!.offset + records.at(-1)!.length);
  });
});
