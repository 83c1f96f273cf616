/**
 * What a live read holds back for a moment (issue 38: class 4, and class 2 at a live tail). A
 * program that writes a secret in pieces shows a reader at the live tail each piece before the next
 * exists: a token's first half (`token ghp_eKrop…`), or a second half written first that a later
 * write puts the first half before (`ESC[A`, `\r`, backspaces, `ESC[row;colH`). Each piece alone is
 * too short, or too plain, for any rule; the reader has shown it before the rest makes it a secret.
 *
 * So a read of a live session stops before the first byte of what may be such a piece while it is
 * younger than the hold (DERUN_LIVE_HOLD_MS, default 500 ms: ../secrets/config.ts), per channel
 * (stdout and stderr interleave: a token begun on one goes on there after the other wrote):
 * - the channel's last word, when it is not ended (no blank, control byte, quote or bracket after
 *   it) and MIN_HELD bytes or more: a token's beginning;
 * - a run of letters and digits that looks like a piece of a token (./pieces.ts; not in a path,
 *   not in a string the terminal does not draw): a piece the terminal may yet assemble with one
 *   written later.
 * A piece that is masked once the bytes written since are read with it is shown at once (the rest
 * came); one that stays unmasked is shown when its hold ends, as it stands. An ordinary line (no
 * such word) is never held: it is shown as soon as it is written.
 */
import type { OutputSlice, Store } from "../core/store.ts";
import { joined } from "./joined.ts";
import { CONTEXT, maskBetween, redactorOf, sliceWith } from "./masking.ts";
import { liveHoldMs } from "../secrets/redactor.ts";
import { firstPiece } from "./pieces.ts";

/** A longer last word is not held: no secret is that long, and a reader should not wait on it. */
const MAX_HELD = 4096;
/**
 * A shorter last word is shown at once (a prompt's `x`, `[y/N]`): what it could give of a secret is
 * fewer characters than any rule's token has after its prefix, and the rest is masked whole when it
 * comes (a read masks its window with the bytes before it).
 */
const MIN_HELD = 8;

const ENDS_WORD = new Uint8Array(256);
for (let b = 0; b <= 0x20; b++) ENDS_WORD[b] = 1;
for (const c of "\"'`,;()[]{}<>|") ENDS_WORD[c.charCodeAt(0)] = 1;
ENDS_WORD[0x7f] = 1;

/** The first byte held (an output.bin offset) and when its hold ends (ms since the epoch). */
export interface HeldFrom {
  readonly at: number;
  readonly until: number;
}

/** One channel's slices of a read as one run of bytes, and the slice each byte came from. */
function channelBytes(list: readonly OutputSlice[]) {
  const bytes = joined(list.map((s) => s.bytes));
  const ends: number[] = [];
  let n = 0;
  for (const s of list) ends.push((n += s.bytes.length));
  const sliceAt = (pos: number) => {
    let [lo, hi] = [0, ends.length - 1];
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (ends[mid]! <= pos) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const offsetOf = (pos: number) => {
    const i = sliceAt(pos);
    return list[i]!.start + pos - (ends[i]! - list[i]!.bytes.length);
  };
  return { bytes, sliceAt, offsetOf };
}

/** The hold one channel asks for: its first young piece, or its unended last word. */
function channelHold(list: readonly OutputSlice[], holdMs: number, now: number): HeldFrom | undefined {
  const young = (s: OutputSlice) => now - Date.parse(s.timestamp) < holdMs;
  let first = list.length;
  while (first > 0 && young(list[first - 1]!)) first--;
  if (first === list.length) return undefined;
  // A piece (or a word) that began in an older write and goes on in a young one: from up to MAX_HELD bytes back.
  let from = first;
  for (let back = 0; from > 0 && back < MAX_HELD; ) back += list[--from]!.bytes.length;
  const part = list.slice(from);
  const { bytes, sliceAt, offsetOf } = channelBytes(part);
  // Bytes written longer ago than the hold are never held: each byte waits at most holdMs (a word
  // that keeps growing, `Downloading....` a dot at a time, would otherwise wait for as long as it grows).
  let firstYoung = 0;
  for (let i = 0; i < first - from; i++) firstYoung += part[i]!.bytes.length;
  // Never from inside a character (a write's record may end in one): a text read would show halves.
  let youngAt = firstYoung;
  while (youngAt > 0 && (bytes[youngAt]! & 0xc0) === 0x80) youngAt--;
  const holdOf = (pos: number): HeldFrom => ({
    at: offsetOf(Math.max(pos, youngAt)),
    // Until its first young byte is as old as the hold.
    until: Date.parse(part[sliceAt(Math.max(pos, firstYoung))]!.timestamp) + holdMs,
  });
  let word = bytes.length;
  let stars = true; // a word already masked (all `*`) shows nothing more when it goes on
  while (word > 0 && ENDS_WORD[bytes[word - 1]!] === 0 && bytes.length - word < MAX_HELD) if (bytes[--word] !== 0x2a) stars = false;
  const length = bytes.length - word;
  const last = length >= MIN_HELD && length < MAX_HELD && !stars ? holdOf(word) : undefined;
  // A piece inside the last word is held with it, from the word's first byte.
  const piece = firstPiece(bytes, (start, end) => (!last || start < word) && young(part[sliceAt(end - 1)]!));
  return piece ? holdOf(piece.start) : last;
}

/** Where a live read of `slices` stops (the earliest hold of any channel), or undefined when nothing is held. */
export function heldFrom(slices: readonly OutputSlice[], holdMs: number, now: number): HeldFrom | undefined {
  if (holdMs <= 0 || slices.length === 0) return undefined;
  // Nothing young (the common case of a reader behind the tail): one look at the last slice (records are in time order).
  if (!(now - Date.parse(slices[slices.length - 1]!.timestamp) < holdMs)) return undefined;
  const byChannel = new Map<string, OutputSlice[]>();
  for (const s of slices) {
    const list = byChannel.get(s.channel);
    if (list) list.push(s);
    else byChannel.set(s.channel, [s]);
  }
  let held: HeldFrom | undefined;
  for (const list of byChannel.values()) {
    const h = channelHold(list, holdMs, now);
    if (h && (!held || h.at < held.at)) held = h;
  }
  return held;
}

/** `slices` up to (not including) offset `at`. */
export function cutAt(slices: readonly OutputSlice[], at: number): OutputSlice[] {
  const kept: OutputSlice[] = [];
  for (const s of slices) {
    if (s.end <= at) kept.push(s);
    else if (s.start < at) kept.push(sliceWith(s, s.bytes.subarray(0, at - s.start)));
  }
  return kept;
}

export interface Held {
  readonly slices: readonly OutputSlice[];
  /** How long until what was held back would be shown anyway (0: nothing held). */
  readonly heldMs: number;
}

/**
 * The slices a live read may show now: cut before the first possible piece of a secret that is still
 * unmasked once `mask` (the read's own masking, with the bytes after the slices as written so far)
 * has gone over them. `mask` runs only when something young may be a piece.
 */
export async function holdLive(
  slices: readonly OutputSlice[],
  mask: (slices: readonly OutputSlice[]) => Promise<readonly OutputSlice[]> | readonly OutputSlice[],
  holdMs = liveHoldMs(),
  now = Date.now(),
): Promise<Held> {
  if (!heldFrom(slices, holdMs, now)) return { slices, heldMs: 0 };
  const held = heldFrom(await mask(slices), holdMs, now);
  if (!held) return { slices, heldMs: 0 };
  return { slices: cutAt(slices, held.at), heldMs: Math.max(1, Math.ceil(held.until - now)) };
}

/**
 * A `mask` for {@link holdLive} that reads the bytes before the slices and none after: for a reader
 * that shows the slices masked with nothing past them (a snapshot's range, `until`'s open line). A
 * piece whose rest was written after them is not masked in what that reader shows, so it stays held.
 */
export function maskWithin(store: Store, sessionId: string): (slices: readonly OutputSlice[]) => Promise<readonly OutputSlice[]> {
  return async (slices) => {
    if (slices.length === 0) return slices;
    const redactor = await redactorOf(store, sessionId);
    const lo = slices[0]!.start;
    const from = Math.max(0, lo - CONTEXT);
    const before = from < lo ? (await store.read(sessionId, from, lo - from)).slices.filter((s) => s.end <= lo) : [];
    return maskBetween(redactor, before, slices, []).slices;
  };
}

/** Bytes at a live session's end looked at for a hold: what a snapshot read would show of its last moments. */
const SNAPSHOT_TAIL = 64 << 10;

/**
 * Where a snapshot read of a live session's `[lo, hi)` ends (derun_read_text, `derun cat`, grep,
 * search): before a possible piece of a secret still waiting for its rest, as a follower's read
 * ends (the views read the range fixed when they start, so they hold back as a read of it would).
 */
export async function liveSnapshotEnd(store: Store, sessionId: string, lo: number, hi: number): Promise<number> {
  const holdMs = liveHoldMs();
  if (holdMs <= 0 || hi <= lo) return hi;
  const from = Math.max(lo, hi - SNAPSHOT_TAIL);
  const read = await store.read(sessionId, from, hi - from);
  const slices = read.slices.filter((s) => s.start < hi).map((s) => (s.end <= hi ? s : sliceWith(s, s.bytes.subarray(0, hi - s.start))));
  if (!heldFrom(slices, holdMs, Date.now())) return hi;
  const held = await holdLive(slices, maskWithin(store, sessionId), holdMs);
  return held.heldMs > 0 ? (held.slices.at(-1)?.end ?? from) : hi;
}
