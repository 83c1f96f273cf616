/**
 * Search's shortcut through raw bytes: which lines of a piece of one channel can hold a pattern's
 * required literal in their text view, found without building the view of the others.
 *
 * The text view's line N of a channel is made from exactly that channel's bytes between its
 * (N-1)-th and N-th LF (every LF ends a line and every sequence, text.ts), and a line whose bytes
 * hold no control (C0 but TAB and LF, CR not before LF, DEL, C1) is its bytes decoded, nothing
 * removed or redrawn. So such a line's text holds the literal only if its bytes hold the literal's
 * UTF-8 bytes. Every other line (a control in it could join a literal split by an escape code or a
 * redraw) is handed to the view, and so is a line the piece does not hold whole (its head and
 * tail). The rest is only counted, so line numbers stay those of the view.
 */

import { simdSkip } from "./simd-scan.ts";

/** What to do with a piece, in order: a number is that many lines skipped; a pair is [from, to) of the piece to give the view. */
export type ScanStep = number | readonly [number, number];

const LF = 0x0a;
/** Bytes planned before a piece may be found dense with candidates. */
const DENSE_AFTER = 1 << 14;
const CR = 0x0d;
const TAB = 0x09;
const ESC = 0x1b;
/** Bytes that may begin a control: C0, DEL, and 0xC2 (the lead byte of C1 in UTF-8, and of U+00A0-U+00BF). */
const SUSPECT = new Uint8Array(256);
for (let c = 0; c < 0x20; c++) SUSPECT[c] = 1;
SUSPECT[0x7f] = 1;
SUSPECT[0xc2] = 1;

/** Whether the byte at `i` is harmless after all (LF is counted by the caller). */
const harmless = (b: Uint8Array, i: number, c: number): boolean =>
  c === TAB || (c === CR && b[i + 1] === LF) || (c === 0xc2 && b[i + 1] !== undefined && (b[i + 1]! < 0x80 || b[i + 1]! > 0x9f));

/**
 * LFs in b[from, to) and the first control there (or -1). Four bytes at a time where they are
 * aligned: a word with no byte below 0x20, no 0x7F and no 0xC2 is passed over whole.
 */
export function scanPlain(b: Uint8Array, from: number, to: number, needle?: Uint8Array): { lfs: number; control: number } {
  let lfs = 0;
  for (let at = from; ; ) {
    const run = scanRun(b, at, to, needle);
    lfs += run.lfs;
    if (run.past < 0) return { lfs, control: run.control };
    at = run.past; // past an escape code that cannot hide the literal: scan on
  }
}

/** scanPlain up to the first control, or up to an escape code passed over (`past`: where to go on). */
function scanRun(b: Uint8Array, from: number, to: number, needle?: Uint8Array): { lfs: number; control: number; past: number } {
  let lfs = 0;
  let i = from;
  /** Past a colour code (or another CSI that edits no line) that cannot join the literal's halves; or -1: the line must be viewed. */
  const passEscape = (at: number): number => (needle === undefined ? -1 : removableCsiEnd(b, at, to, needle));
  // In the scanner's memory: 16 clean bytes at a time in SIMD, a block holding a suspect byte here.
  for (let skip = simdSkip(b, i, to); skip !== undefined; skip = simdSkip(b, i, to)) {
    lfs += skip.lfs;
    i = skip.at;
    if (i >= to) return { lfs, control: -1, past: -1 };
    for (const end = Math.min(to, i + 16); i < end; i++) {
      const c = b[i]!;
      if (SUSPECT[c] === 0) continue;
      if (c === LF) lfs++;
      else if (!harmless(b, i, c)) {
        const past = c === ESC ? passEscape(i) : -1;
        if (past < 0) return { lfs, control: i, past: -1 };
        return again(past);
      }
    }
  }
  // Byte by byte up to a 4-byte boundary, then a word at a time, then the last bytes.
  const head = Math.min(to, from + ((4 - ((b.byteOffset + from) & 3)) & 3));
  for (; i < head; i++) {
    const c = b[i]!;
    if (SUSPECT[c] === 0) continue;
    if (c === LF) lfs++;
    else if (!harmless(b, i, c)) {
      const past = c === ESC ? passEscape(i) : -1;
      if (past < 0) return { lfs, control: i, past: -1 };
      return again(past);
    }
  }
  if (i >= to) return { lfs, control: -1, past: -1 };
  const words = new Uint32Array(b.buffer, b.byteOffset + i, (to - i) >> 2);
  const n = words.length;
  for (let k = 0; k < n; k++) {
    const x = words[k]!;
    const y = x ^ 0x7f7f7f7f;
    const z = x ^ 0xc2c2c2c2;
    // A byte below 0x20, or equal to 0x7F or 0xC2 (the classic "has less than" / "has zero" tricks).
    if (((((x - 0x20202020) & ~x) | ((y - 0x01010101) & ~y) | ((z - 0x01010101) & ~z)) & 0x80808080) === 0) continue;
    for (let j = i + (k << 2), end = j + 4; j < end; j++) {
      const c = b[j]!;
      if (SUSPECT[c] === 0) continue;
      if (c === LF) lfs++;
      else if (!harmless(b, j, c)) {
        const past = c === ESC ? passEscape(j) : -1;
        if (past < 0) return { lfs, control: j, past: -1 };
        return again(past);
      }
    }
  }
  for (let j = i + (n << 2); j < to; j++) {
    const c = b[j]!;
    if (SUSPECT[c] === 0) continue;
    if (c === LF) lfs++;
    else if (!harmless(b, j, c)) {
      const past = c === ESC ? passEscape(j) : -1;
      if (past < 0) return { lfs, control: j, past: -1 };
      return again(past);
    }
  }
  return { lfs, control: -1, past: -1 };

  function again(past: number): { lfs: number; control: number; past: number } {
    return { lfs, control: -1, past };
  }
}

/** The longest literal checked for halves around an escape code; a longer one views every line with a code. */
const MAX_SPLIT_CHECK = 64;
/** CSI final bytes that edit the line (text.ts leaves them to the general path): @ C D G J K P X ` a. */
const EDITS = new Set([0x40, 0x43, 0x44, 0x47, 0x4a, 0x4b, 0x50, 0x58, 0x60, 0x61]);

/**
 * Where a CSI at `at` ends when the text view only removes it (colours, modes, moves to other rows)
 * and the bytes before it do not end with the start of `needle` (so removing it cannot join the
 * literal's halves); -1 otherwise: any other sequence, an editing one, one cut by `to`, or a split
 * literal possible.
 */
function removableCsiEnd(b: Uint8Array, at: number, to: number, needle: Uint8Array): number {
  if (needle.length > MAX_SPLIT_CHECK || b[at + 1] !== 0x5b) return -1;
  let j = at + 2;
  while (j < to && b[j]! >= 0x30 && b[j]! <= 0x3f) j++;
  while (j < to && b[j]! >= 0x20 && b[j]! <= 0x2f) j++;
  if (j >= to || b[j]! < 0x40 || b[j]! > 0x7e || EDITS.has(b[j]!)) return -1;
  // A literal split by the code: its first k bytes (0 < k < its length) right before the code.
  for (let k = Math.min(needle.length - 1, at); k > 0; k--) {
    let same = true;
    for (let m = 0; m < k && same; m++) same = b[at - k + m] === needle[m];
    if (same) return -1;
  }
  return j + 1;
}

/**
 * The plan for one piece of a channel's bytes. Its head (up to its first LF) and tail (after its
 * last LF) always go to the view, with `context` lines inside the piece next to them (a match in
 * the piece beside may need them); between them, the lines that hold `needle` or a control, each
 * with `context` lines on either side, go to the view, and the others are counted. Every byte
 * between head and tail is scanned, so a line given only as context that holds a match has its own
 * context too.
 */
export function planPiece(b: Uint8Array, needle: Uint8Array, context: number): ScanStep[] {
  const buffer = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  const first = buffer.indexOf(LF);
  if (first < 0) return [[0, b.length]];
  const last = buffer.lastIndexOf(LF) + 1;
  const steps: ScanStep[] = [];
  let fed = 0;
  const feed = (from: number, to: number) => {
    if (to <= from) return;
    fed += to - from;
    const prev = steps.at(-1);
    // Adjacent ranges as one: the view takes a long range faster than many short ones.
    if (typeof prev === "object" && prev[1] === from) steps[steps.length - 1] = [prev[0], to];
    else steps.push([from, to]);
  };
  /** Just past `lines` more lines from the line start `from` (not past `last`). */
  const forward = (from: number, lines: number) => {
    let end = from;
    for (let k = 0; k < lines && end < last; k++) end = buffer.indexOf(LF, end) + 1;
    return end;
  };
  /** The start of the line `lines` lines before the line start `from` (not before `floor`). */
  const back = (from: number, lines: number, floor: number) => {
    let start = from;
    for (let k = 0; k < lines && start > floor; k++) start = buffer.lastIndexOf(LF, start - 2) + 1;
    return Math.max(start, floor);
  };
  feed(0, first + 1);
  // Everything before `pos` is planned; the line before it was given to the view and is owed `context` lines after it.
  let pos = first + 1;
  let hit = buffer.indexOf(needle, pos);
  for (;;) {
    const stop = hit >= 0 && hit < last ? hit : last;
    const { lfs, control } = scanPlain(b, pos, stop, needle);
    const at = control >= 0 ? control : stop;
    // The next line to give the view: the one holding `at`, or the tail.
    const lineStart = at >= last ? last : buffer.lastIndexOf(LF, at - 1) + 1;
    const lineEnd = at >= last ? b.length : buffer.indexOf(LF, at) + 1;
    // `lfs` lines lie between: the first `context` are owed as context, and so are the last `context`.
    if (lfs <= 2 * context) feed(pos, lineEnd);
    else {
      const after = forward(pos, context);
      const before = back(lineStart, context, after);
      feed(pos, after);
      steps.push(lfs - 2 * context);
      feed(before, lineEnd);
    }
    if (at >= last) break;
    pos = lineEnd;
    // Most lines so far went to the view (escape codes on every line): the rest goes whole, as it would without the shortcut.
    if (pos > DENSE_AFTER && fed > pos / 2) {
      feed(pos, b.length);
      break;
    }
    if (hit >= 0 && hit < pos) hit = buffer.indexOf(needle, pos);
  }
  return steps;
}
