/**
 * The read shared by derun_read_output and derun_wait_output: committed slices from the store,
 * coalesced into chunks and encoded as text or base64, plus the cursor facts a model needs.
 */
import type { NotRecorded } from "./gaps.ts";
import { type DerunSessionState, type DerunOutputChannel, SCHEMA_VERSION } from "../core/enums.ts";
import { isLiveState, type OutputSlice, type Store } from "../core/store.ts";
import { clipSlices as clip } from "./clip-slices.ts";
import { joined } from "./joined.ts";
import { holdLive } from "./live-hold.ts";
import { CONTEXT, maskBetween, maskFarther, redactedField, redactorOf } from "./masking.ts";
import { decodeUtf8, utf8Boundary, utf8SequenceHere, utf8SequenceLength } from "./utf8.ts";

/** How a read hands out its bytes: UTF-8 text, or byte-exact base64. */
export type Encoding = "text" | "base64";

interface ChunkBase {
  readonly channel: DerunOutputChannel;
  readonly start_cursor: string;
  readonly end_cursor: string;
  readonly timestamp: string;
}
export type OutputChunk = (ChunkBase & { readonly data: string }) | (ChunkBase & { readonly data_base64: string });

/** The derun_read_output result. */
export interface ReadOutputResult {
  readonly schema_version: typeof SCHEMA_VERSION;
  readonly session_id: string;
  readonly chunks: OutputChunk[];
  readonly next_cursor: string;
  readonly at_tail: boolean;
  readonly eof: boolean;
  readonly session_state: DerunSessionState;
  /** Secrets masked in this answer's chunks (absent: none). */
  readonly redacted?: number;
  /** Output left out of the transcript (derun pause, ignore rules) at cursors in this answer's range (absent: none). */
  readonly not_recorded?: readonly NotRecorded[];
  /**
   * The cursor asked for lies before the bytes kept of a session trimmed past max_session: bytes
   * before this cursor were dropped, and the output continues here (absent: nothing asked was dropped).
   */
  readonly trimmed_before?: string;
}

/** The result of a read ending at `next`: at the tail when `atTail`, at its end once the session is no longer live too. */
export const readResult = (
  sessionId: string,
  chunks: OutputChunk[],
  next: number,
  atTail: boolean,
  state: DerunSessionState,
): ReadOutputResult => ({
  schema_version: SCHEMA_VERSION,
  session_id: sessionId,
  chunks,
  next_cursor: String(next),
  at_tail: atTail,
  eof: atTail && !isLiveState(state),
  session_state: state,
});

/** The result with its count of masked secrets, when there were any. */
export const withRedacted = <R extends object>(result: R, count: number): R & { redacted?: number } => ({
  ...result,
  ...redactedField(count),
});

export interface OutputWindow {
  readonly result: ReadOutputResult;
  /** Committed bytes at the time of the read: a waiter with nothing to return waits past this. */
  readonly committedEnd: number;
  /** A possible piece of a secret was held back (./live-hold.ts): a waiter reads again after this many ms at most. */
  readonly heldMs?: number;
}

/** Consecutive bytes of one channel: adjacent index records merged, the first record's timestamp. */
interface ChannelStretch {
  readonly channel: DerunOutputChannel;
  readonly start: number;
  readonly timestamp: string;
  readonly bytes: Uint8Array;
}

/** A UTF-8 character is at most 4 bytes: read this much past `max_bytes` to finish the last one. */
const TEXT_LOOKAHEAD = 3;

/**
 * Merge adjacent slices of the same channel. Fewer chunks cost fewer tokens, and a character that
 * a PTY read split across two records decodes whole instead of as two U+FFFD.
 */
const coalesce = (slices: readonly OutputSlice[]): ChannelStretch[] => {
  const stretches: ChannelStretch[] = [];
  let pending: { channel: DerunOutputChannel; start: number; end: number; timestamp: string; parts: Uint8Array[] } | undefined;
  const flush = () => {
    if (pending)
      stretches.push({ channel: pending.channel, start: pending.start, timestamp: pending.timestamp, bytes: joined(pending.parts) });
  };
  for (const slice of slices) {
    if (pending && pending.channel === slice.channel && pending.end === slice.start) {
      pending.parts.push(slice.bytes);
      pending.end = slice.end;
    } else {
      flush();
      pending = { channel: slice.channel, start: slice.start, end: slice.end, timestamp: slice.timestamp, parts: [slice.bytes] };
    }
  }
  flush();
  return stretches;
};

/**
 * Cut stretches for text: stop at `limit` on a character boundary (taking one whole character if none
 * fits, so a read always progresses), and while the session is live hold back a character whose
 * remaining bytes are not committed yet, rather than emitting it as U+FFFD.
 */
const cutForText = (stretches: readonly ChannelStretch[], limit: number, committedEnd: number, live: boolean) => {
  const kept: ChannelStretch[] = [];
  let withheldAtTail = false;
  for (const stretch of stretches) {
    const length = stretch.bytes.length;
    const room = Math.min(length, limit - stretch.start);
    if (room <= 0) break;
    const atLiveTail = live && stretch.start + length === committedEnd;
    let end = room < length || atLiveTail ? utf8Boundary(stretch.bytes, room) : room;
    if (end === 0 && kept.length === 0 && room < length) {
      // One whole character, or as much of a cut-short one as there is (never the first byte of
      // the next one); at a live tail, an incomplete last character waits for its bytes.
      const here = utf8SequenceHere(stretch.bytes);
      end = here < length || !atLiveTail || here === utf8SequenceLength(stretch.bytes[0]!) ? here : 0;
    }
    if (end > 0) kept.push({ ...stretch, bytes: stretch.bytes.subarray(0, end) });
    if (end < length) {
      withheldAtTail = atLiveTail && room === length;
      break;
    }
  }
  return { kept, withheldAtTail };
};

const toChunk = (stretch: ChannelStretch, encoding: Encoding): OutputChunk => {
  const base = {
    channel: stretch.channel,
    start_cursor: String(stretch.start),
    end_cursor: String(stretch.start + stretch.bytes.length),
    timestamp: stretch.timestamp,
  };
  return encoding === "text"
    ? { ...base, data: decodeUtf8(stretch.bytes) }
    : { ...base, data_base64: Buffer.from(stretch.bytes.buffer, stretch.bytes.byteOffset, stretch.bytes.byteLength).toString("base64") };
};

/**
 * The store read of `want` bytes from `cursor`, masked. The masking context (CONTEXT bytes either
 * side) comes in the same store read as the window: one look at the session's files per call, not
 * three (a 64 KiB page of derun_read_output cost 0.5 ms in them). While the session is live, what
 * may be a piece of a secret waits for its rest (./live-hold.ts): `heldMs` says for how long at most.
 */
async function readMasked(store: Store, sessionId: string, cursor: number, want: number) {
  const redactor = await redactorOf(store, sessionId);
  // Unmasked, or a cursor the store refuses (with its own message): the plain read.
  if (!redactor.enabled || !Number.isSafeInteger(cursor) || cursor < 0) {
    const read = await store.read(sessionId, cursor, want);
    return { read, masked: { slices: [...read.slices], count: 0 }, held: { end: read.next_cursor, heldMs: 0 } };
  }
  const from = Math.max(0, cursor - CONTEXT);
  const wide = await store.read(sessionId, from, cursor - from + want + CONTEXT);
  // A trimmed session's window begins where its kept bytes do, never past what was asked (as the store's read).
  const start = Math.min(Math.max(cursor, wide.kept_from ?? 0), wide.output_bytes);
  const end = Math.max(start, Math.min(wide.output_bytes, cursor + want));
  const window = clip(wide.slices, start, end);
  const read = { ...wide, slices: window, next_cursor: end };
  const before = clip(wide.slices, from, start);
  const maskUpTo = (slices: readonly OutputSlice[], to: number) =>
    maskBetween(redactor, before, slices, clip(wide.slices, to, to + CONTEXT));
  // While the session is live, a possible piece of a secret waits for its rest (./live-hold.ts);
  // the whole window masked to decide is the answer when nothing stays held.
  let whole: ReturnType<typeof maskUpTo> | undefined;
  const hold = isLiveState(read.state) ? await holdLive(window, (s) => (whole = maskUpTo(s, end)).slices) : { slices: window, heldMs: 0 };
  const heldEnd = hold.heldMs > 0 ? (hold.slices.at(-1)?.end ?? start) : end;
  const near = hold.heldMs === 0 && whole ? whole : maskUpTo(hold.slices, heldEnd);
  // A piece of a token still shown: its rest may be farther away than CONTEXT (./far-context.ts).
  const more = { before: from > 0, after: wide.output_bytes > heldEnd + CONTEXT };
  const around = { slices: hold.slices, before, after: clip(wide.slices, heldEnd, heldEnd + CONTEXT) };
  const masked = await maskFarther(store, sessionId, redactor, around, near, more);
  // All of the window held: the next read starts where the held bytes do, not past them.
  return { read: { ...read, next_cursor: heldEnd }, masked, held: { end: heldEnd, heldMs: hold.heldMs } };
}

/**
 * Read at most `maxBytes` committed bytes from `cursor` (clamped to the committed end). Text may
 * return up to 3 bytes more than `maxBytes` only when a single character is larger than it.
 */
export const readOutput = async (
  store: Store,
  sessionId: string,
  cursor: number,
  maxBytes: number,
  encoding: Encoding,
): Promise<OutputWindow> => {
  const text = encoding === "text";
  const { read, masked, held } = await readMasked(store, sessionId, cursor, maxBytes + (text ? TEXT_LOOKAHEAD : 0));
  const stretches = coalesce(masked.slices);
  const start = stretches[0]?.start ?? read.next_cursor;
  const live = isLiveState(read.state);
  const { kept, withheldAtTail } = text
    ? cutForText(stretches, start + maxBytes, read.output_bytes, live)
    : { kept: stretches, withheldAtTail: false };
  const last = kept.at(-1);
  const next = last ? last.start + last.bytes.length : start;
  const atTail = next === read.output_bytes || withheldAtTail || (held.heldMs > 0 && next === held.end);
  const result = readResult(
    sessionId,
    kept.map((stretch) => toChunk(stretch, encoding)),
    next,
    atTail,
    read.state,
  );
  const trimmed = read.kept_from !== undefined && cursor < read.kept_from ? { trimmed_before: String(read.kept_from) } : {};
  return {
    committedEnd: read.output_bytes,
    result: { ...withRedacted(result, masked.count), ...trimmed },
    ...(held.heldMs > 0 ? { heldMs: held.heldMs } : {}),
  };
};
