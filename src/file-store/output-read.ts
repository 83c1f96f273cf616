/**
 * A session's output bytes as the Store hands them to readers (output-source.ts says where they are
 * read from): a window of them cut at the index records it meets, or a reader that an engine drives
 * window by window on one descriptor. Either refuses bytes a trim took (trim.ts) rather than give
 * others in their place.
 */
import { DerunError } from "../core/errors.ts";
import type { IndexRecords, OutputReader, OutputSlice } from "../core/store.ts";
import { openOutputSource } from "./output-source.ts";
import { keptFrom } from "./trim.ts";

/**
 * One record's part of a read. Its time becomes text only when asked: a window of small records
 * holds thousands of them, and most readers want only the bytes.
 */
class RecordSlice implements OutputSlice {
  readonly channel: OutputSlice["channel"];

  constructor(
    private readonly records: IndexRecords,
    private readonly i: number,
    readonly start: number,
    readonly end: number,
    readonly bytes: Uint8Array,
  ) {
    this.channel = records.channel(i);
  }

  get timestamp(): string {
    return this.records.timestamp(this.i);
  }
}

/**
 * A reader of the `committed` bytes of a session's output, on a descriptor opened once (the file
 * that was checked). `kept` is where its kept bytes began when the session was looked at; a live
 * session is trimmed under the reader, so its trim.json is looked at again after each read.
 */
export function openOutputReader(dir: string, sessionId: string, committed: number, kept: number, live: boolean): OutputReader {
  const source = openOutputSource(dir, sessionId);
  let open = true;
  const close = () => {
    if (open) source[Symbol.dispose]();
    open = false;
  };
  const trimmed = (start: number) =>
    new DerunError("output_trimmed", `session ${sessionId}: bytes before ${start} were trimmed (max_session); output continues there`);
  return {
    committed,
    keptFrom: kept,
    readInto(start: number, into: Uint8Array): number {
      if (!Number.isSafeInteger(start) || start < 0)
        throw new DerunError("invalid_argument", `cursor must be a non-negative integer, got ${start}`);
      if (!open) throw new DerunError("invalid_argument", `the output of session ${sessionId} was closed`);
      if (start < kept) throw trimmed(kept);
      const end = Math.min(committed, start + into.length);
      if (end <= start) return 0;
      source.fill(start, into.subarray(0, end - start));
      // Only a live session is trimmed: an ended one's bytes cannot move under the reader.
      if (live && (kept = keptFrom(dir, sessionId)) > start) throw trimmed(kept);
      return end - start;
    },
    [Symbol.dispose]: close,
  };
}

/** The slices of `[start, end)` of output.bin, one per index record it meets. */
export function readSlices(
  records: IndexRecords,
  dir: string,
  start: number,
  end: number,
  sessionId: string,
  output: string,
): OutputSlice[] {
  const window = readWindow(dir, start, end, sessionId, output);
  const slices: OutputSlice[] = [];
  for (let i = records.firstEndingAfter(start); i < records.count; i++) {
    const offset = records.offset(i);
    if (offset >= end) break;
    const from = Math.max(offset, start);
    const to = Math.min(records.end(i), end);
    if (to > from) slices.push(new RecordSlice(records, i, from, to, window.subarray(from - start, to - start)));
  }
  return slices;
}

/** Positional read of exactly `[start, end)` of the output. */
function readWindow(dir: string, start: number, end: number, sessionId: string, output: string): Buffer {
  const buffer = Buffer.allocUnsafe(end - start);
  using source = openOutputSource(dir, sessionId, output);
  source.fill(start, buffer);
  return buffer;
}
