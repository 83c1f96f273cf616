/**
 * derun_read_output and derun_wait_output with `view: "text"`: the same byte window as a raw read,
 * shown as the text view (control sequences removed, redraws collapsed), consecutive lines of one
 * channel as one chunk. Cursors stay byte offsets. While more bytes follow (or may), the window ends
 * after its last LF so that no line is split between two reads, unless it holds no LF at all.
 */
import type { DerunOutputChannel } from "../core/enums.ts";
import { isLiveState, type OutputSlice, type Store } from "../core/store.ts";
import { TextView, type TextLine } from "../views/text.ts";
import { chunksOf, spanArray, type RecordSpans } from "../views/window.ts";
import { joined } from "./joined.ts";
import { readResult, withRedacted, type OutputChunk, type OutputWindow } from "./output.ts";
import { LineMasking, maskSlices, redactorOf, type Redactor } from "./masking.ts";
import { holdLive } from "./live-hold.ts";
import { utf8CutAtLeastOne } from "./utf8.ts";

/** Bytes read past max_bytes, so that one whole character can be taken when max_bytes is smaller. */
const CHARACTER_LOOKAHEAD = 3;
/**
 * The longest control sequence a read takes whole when it is longer than max_bytes (an OSC 8 link,
 * a window title): past this the sequence is cut as any window is.
 */
const SEQUENCE_LIMIT = 4096;

interface Group {
  readonly channel: DerunOutputChannel;
  readonly start: number;
  end: number;
  readonly lines: string[];
  open: boolean;
}

/** The text view's lines of a window, complete then partial, and where a sequence it ends inside began. */
function viewOf(bytes: Uint8Array, offset: number, spans: RecordSpans): { lines: TextLine[]; open: number | undefined } {
  const view = new TextView();
  const lines: TextLine[] = [];
  for (const chunk of chunksOf({ offset, bytes }, spans)) lines.push(...view.write(chunk.channel, chunk.bytes, chunk.offset));
  lines.push(...view.partials());
  return { lines, open: view.openSequenceStart() };
}

type Read = Awaited<ReturnType<Store["read"]>>;

const spansOf = (read: Read) => spanArray(read.slices.map((s) => ({ offset: s.start, length: s.end - s.start, channel: s.channel })));

/**
 * The length of the control sequence that begins at `start` (it did not end within the window), read
 * whole up to SEQUENCE_LIMIT bytes: found by halving, as a sequence once ended stays ended. Length 0
 * while a live session is still writing it (wait for its end); undefined when it is longer than that.
 */
async function sequenceLength(store: Store, sessionId: string, start: number): Promise<{ read: Read; length: number } | undefined> {
  const read = await store.read(sessionId, start, SEQUENCE_LIMIT);
  const bytes = joined(read.slices.map((s) => s.bytes));
  const spans = spansOf(read);
  const ended = (length: number) => viewOf(bytes.subarray(0, length), start, spans).open !== start;
  if (!ended(bytes.length)) return isLiveState(read.state) && start + bytes.length === read.output_bytes ? { read, length: 0 } : undefined;
  let [lo, hi] = [1, bytes.length]; // ended(hi) holds
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ended(mid)) hi = mid;
    else lo = mid + 1;
  }
  return { read, length: hi };
}

/** A live read cut before a possible piece of a secret still waiting for its rest (./live-hold.ts), and where and how long. */
async function heldRead(store: Store, sessionId: string, read: Read, redactor: Redactor) {
  if (!isLiveState(read.state)) return { read };
  const held = await holdLive(read.slices, async (slices) => (await maskSlices(store, sessionId, redactor, slices)).slices);
  if (held.heldMs === 0) return { read };
  const heldEnd = held.slices.at(-1)?.end ?? read.slices[0]?.start ?? read.next_cursor;
  return { read: { ...read, slices: [...held.slices], next_cursor: heldEnd }, heldEnd, heldMs: held.heldMs };
}

export async function readTextView(store: Store, sessionId: string, cursor: number, maxBytes: number): Promise<OutputWindow> {
  const redactor = await redactorOf(store, sessionId);
  // The window ends before a possible piece of a secret still waiting for its rest.
  const held = await heldRead(store, sessionId, await store.read(sessionId, cursor, maxBytes + CHARACTER_LOOKAHEAD), redactor);
  let read = held.read;
  const { heldEnd } = held;
  const live = isLiveState(read.state);
  const first = read.slices[0];
  const start = first?.start ?? read.next_cursor;
  let bytes = joined(read.slices.map((s) => s.bytes));
  let length = Math.min(bytes.length, maxBytes);
  const more = start + length < read.output_bytes || live;
  if (more) {
    const lf = length === 0 ? -1 : bytes.lastIndexOf(0x0a, length - 1);
    length = lf >= 0 ? lf + 1 : utf8CutAtLeastOne(bytes, length, live);
  }
  let spans = spansOf(read);
  let { lines, open } = viewOf(bytes.subarray(0, length), start, spans);
  // Nor inside a sequence (the next read would show its rest as text): end before it, or at a
  // live tail wait for its end; a window that is all one sequence, with more bytes after it, goes whole.
  const liveEnd = live && (start + bytes.length === read.output_bytes || heldEnd !== undefined);
  while (more && open !== undefined && (open > start || liveEnd) && Math.max(0, open - start) < length) {
    length = Math.max(0, open - start);
    ({ lines, open } = viewOf(bytes.subarray(0, length), start, spans));
  }
  // The window is all one sequence that goes on past it (longer than max_bytes): take it whole, as
  // a character is taken whole, or the next read would start inside it and show its rest as text.
  if (more && open === start && !liveEnd) {
    const whole = await sequenceLength(store, sessionId, start);
    if (whole !== undefined) {
      ({ read, length } = whole);
      bytes = joined(read.slices.map((s) => s.bytes));
      spans = spansOf(read);
      ({ lines } = viewOf(bytes.subarray(0, length), start, spans));
    }
  }
  const end = start + length;
  // The window's secrets are masked in the bytes first, with the bytes around the window: a secret
  // across a cut (a line longer than max_bytes) is seen whole (each piece alone would look like no
  // secret), and a line of a private key's body is seen after its BEGIN line in an earlier window.
  // Masks keep lengths: the view's offsets stay.
  let maskedInBytes = 0;
  if (redactor.enabled && length > 0) {
    // The window's own bytes (the read runs a few past it): a secret after its end is neither shown nor counted.
    const inWindow = read.slices
      .filter((slice) => slice.start < end)
      .map((slice) => (slice.end <= end ? slice : { ...sliceFields(slice), end, bytes: slice.bytes.subarray(0, end - slice.start) }));
    const masked = await maskSlices(store, sessionId, redactor, inWindow);
    maskedInBytes = masked.count;
    bytes = joined(masked.slices.map((s) => s.bytes));
    ({ lines } = viewOf(bytes.subarray(0, length), start, spans));
  }
  const masking = new LineMasking(redactor);
  const chunks = chunksOfLines(masking.lines(lines), read.slices);
  const atTail = end === read.output_bytes || end === heldEnd;
  return {
    committedEnd: read.output_bytes,
    result: withRedacted(readResult(sessionId, chunks, end, atTail, read.state), maskedInBytes + masking.count),
    ...(held.heldMs ? { heldMs: held.heldMs } : {}),
  };
}

/** Consecutive lines of one channel as one chunk, each with its first byte's record's time. */
function chunksOfLines(lines: readonly TextLine[], slices: readonly OutputSlice[]): OutputChunk[] {
  const groups: Group[] = [];
  for (const line of lines) {
    const last = groups[groups.length - 1];
    if (last && last.channel === line.channel && !last.open) {
      last.lines.push(line.text);
      last.end = line.end;
      last.open = line.partial;
    } else groups.push({ channel: line.channel, start: line.start, end: line.end, lines: [line.text], open: line.partial });
  }
  // Binary search: a line of one channel finished after another's may start before it, so group starts are not in order.
  const timestampAt = (offset: number) => {
    let [lo, hi] = [0, slices.length];
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (slices[mid]!.end > offset) hi = mid;
      else lo = mid + 1;
    }
    return slices[lo]?.timestamp ?? slices[0]?.timestamp ?? "";
  };
  return groups.map((g) => ({
    channel: g.channel,
    start_cursor: String(g.start),
    end_cursor: String(g.end),
    timestamp: timestampAt(g.start),
    data: g.lines.join("\n") + (g.open ? "" : "\n"),
  }));
}

/** A slice's fields as a plain object (its time is a getter of the store's). */
const sliceFields = (slice: OutputSlice): OutputSlice => ({
  channel: slice.channel,
  start: slice.start,
  end: slice.end,
  bytes: slice.bytes,
  timestamp: slice.timestamp,
});
