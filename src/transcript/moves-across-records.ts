/**
 * The text readers' quick check (./assembled-text.ts) over a window's records as they are, without
 * joining them: whether any may move to another row and back, or go back over drawn text on a
 * line, a sequence (or a CR) cut between two records checked whole with the start of its channel's
 * next one.
 */
import type { DerunOutputChannel } from "../core/enums.ts";
import { csiFinal } from "../views/csi-end.ts";
import { GOES_BACK, MOVES_ROWS, redraws } from "../views/may-assemble.ts";

/** One record's bytes and its channel. */
export interface ChannelBytes {
  readonly channel: DerunOutputChannel;
  readonly bytes: Uint8Array;
}

/**
 * Whether any of `list` (consecutive records) may move to another row and back (mayMoveRows): what
 * is drawn within a line the text view puts together itself.
 */
export const mayMoveRowsAny = (list: readonly ChannelBytes[]): boolean => redrawsAny(list, MOVES_ROWS) !== 0;

/**
 * What any of `list` (consecutive records) may do, as ../views/may-assemble.ts's `redraws` flags
 * (MOVES_ROWS, GOES_BACK), those of `want` only, in one pass over each record. Each record is
 * checked on its own (joining them would cost a copy of every window), so a record that ends
 * inside an escape sequence (`ESC[5;` then `10H` in the next write) is checked with the start of
 * its channel's next record, and so is one that ends in a CR (a CR LF cut between two writes).
 */
export function redrawsAny(
  list: readonly ChannelBytes[],
  want: number = MOVES_ROWS | GOES_BACK,
  /** Whether a CR that ends a channel's last record may be lone (false: the line it is on is of no interest). */
  openEnd: (channel: DerunOutputChannel) => boolean = () => true,
  /** The flags that, once found, end the check (the others may then be missing). */
  enough: number = want,
): number {
  let flags = 0;
  for (let i = 0; i < list.length && (flags & enough) !== enough; i++) {
    // Records that follow one another in one buffer (a store read's, cut from one) are one record here.
    const { bytes, last } = runOf(list, i);
    i = last;
    const left = want & ~flags;
    // Plain output (no ESC, no C1 CSI, no CR, no BS) costs four native searches and nothing else.
    const plain = bytes.indexOf(ESC) < 0 && bytes[bytes.length - 1] !== 0xc2;
    if (plain && bytes.indexOf(0x9b) < 0 && ((left & GOES_BACK) === 0 || (bytes.indexOf(CR) < 0 && bytes.indexOf(0x08) < 0))) continue;
    const open = plain ? -1 : openFrom(bytes);
    if (open >= 0) flags |= acrossCut(bytes.subarray(open), list, i, left);
    flags |= redraws(bytes, left, false, enough & left);
    // A CR that ends the record: lone unless its channel's next record begins with LF.
    if ((left & GOES_BACK) !== 0 && bytes[bytes.length - 1] === CR) {
      const next = nextOf(list, i);
      if (next ? next.bytes[0] !== LF : openEnd(list[i]!.channel)) flags |= GOES_BACK;
    }
  }
  return flags & want;
}

/**
 * `list[i]`'s bytes with those of the records after it of its channel that follow them in the same
 * buffer (one view, no copy), and the index of the last such record: a 1 MiB window of 4 KiB
 * writes is checked in one pass, not 256 (each with its native searches: a sixth of a colour log's check).
 */
function runOf(list: readonly ChannelBytes[], i: number): { bytes: Uint8Array; last: number } {
  const first = list[i]!;
  const { buffer, byteOffset } = first.bytes;
  let length = first.bytes.length;
  let last = i;
  for (let k = i + 1; k < list.length; k++) {
    const next = list[k]!;
    if (next.channel !== first.channel || next.bytes.buffer !== buffer || next.bytes.byteOffset !== byteOffset + length) break;
    length += next.bytes.length;
    last = k;
  }
  return { bytes: last === i ? first.bytes : new Uint8Array(buffer, byteOffset, length), last };
}

/** Bytes of the next record a sequence cut at a record's end is looked for in (a longer one is taken for a move). */
const ACROSS = 64;

/** The next record of `list[i]`'s channel after it, if `list` holds one. */
function nextOf(list: readonly ChannelBytes[], i: number): ChannelBytes | undefined {
  let k = i + 1;
  while (k < list.length && list[k]!.channel !== list[i]!.channel) k++;
  return list[k];
}

/** What the sequence `tail` that ends `list[i]` may do (flags of `want`), finished in its channel's next record. */
function acrossCut(tail: Uint8Array, list: readonly ChannelBytes[], i: number, want: number): number {
  const next = nextOf(list, i);
  // Its end is past the bytes the grid replays: nothing it does is drawn there.
  if (!next) return 0;
  const head = next.bytes.subarray(0, ACROSS);
  const joined = new Uint8Array(tail.length + head.length);
  joined.set(tail);
  joined.set(head, tail.length);
  // Only the sequence itself: the rest of the next record is checked as that record.
  const end = sequenceEnd(joined, 0);
  return end < 0 ? want : redraws(joined.subarray(0, end), want, false);
}

/**
 * Where the escape sequence (or the C1 CSI, C2 9B) that `bytes` end inside begins, or -1 when they
 * end outside any.
 */
function openFrom(bytes: Uint8Array): number {
  const n = bytes.length;
  if (n === 0) return -1;
  if (bytes[n - 1] === 0xc2) return n - 1;
  const esc = bytes.lastIndexOf(ESC);
  return esc >= 0 && sequenceEnd(bytes, esc) < 0 ? esc : -1;
}

/** Just past the end of the sequence that begins at `at` (ESC, or C2 9B), or -1 when `bytes` end first. */
function sequenceEnd(bytes: Uint8Array, at: number): number {
  const n = bytes.length;
  let j = at + 1;
  if (bytes[at] === 0xc2 || bytes[j] === 0x5b) j = csiFinal(bytes, j + 1);
  else while (j < n && bytes[j]! >= 0x20 && bytes[j]! <= 0x2f) j++;
  return j < n ? j + 1 : -1;
}

const ESC = 0x1b;
const CR = 0x0d;
const LF = 0x0a;
