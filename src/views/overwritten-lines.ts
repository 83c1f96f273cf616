/**
 * Which lines of some output may show the rest of text written over on them: a token printed whole
 * and then written over by something shorter (after `\r`, backspaces, a move back along the line)
 * leaves its tail in the line a text view keeps, too short for a rule to know. The text readers
 * mask those lines' bytes before drawing them (src/transcript/assembled-text.ts); this one pass
 * keeps that off every other line, so a build log's CR LF ends, a progress bar redrawn with
 * `\r ... ESC[K` and a spinner's `ESC[2K \r` (each erasing what it wrote over) cost a quick look.
 */

import { csiFinal } from "./csi-end.ts";
import { byteTable, GOES_BACK, MOVES_ROWS, redraws } from "./may-assemble.ts";

const LF = 0x0a;
const CR = 0x0d;
const BS = 0x08;
const ESC = 0x1b;
const BEL = 0x07;
const TAB = 0x09;

/**
 * The byte ranges `[start, end)` of the lines of `bytes` (each with its LF) on which text written
 * earlier may survive in part, consecutive lines joined into one range. A line is one when, after
 * a character was drawn on it (since its start, or since the last `ESC[2K` erased it), it goes back
 * (a CR not before LF, a BS, a CSI D, G, H, f, `, u, Z, ESC 8) and the last such `\r` is not followed
 * by an erase to the line's end (`ESC[K`, `ESC[0K`) with no move back, and no move forward past
 * old text (a TAB, CSI C or a), before it, and with the redraw before the erase at least as long as
 * the row it was drawn over (in bytes). A control inside a CSI counts as a move back.
 */
export const overwrittenLines = (bytes: Uint8Array): Array<[number, number]> => {
  const scan = overwrittenScan(bytes);
  return scan.erased.length === 0 ? scan.lines : joinRanges(scan.lines, wholeLines(bytes, scan.erased));
};

/** `ranges` (each ending a line, or the bytes) from the start of the line each begins in. */
export const wholeLines = (bytes: Uint8Array, ranges: ReadonlyArray<readonly [number, number]>): Array<[number, number]> =>
  ranges.map(([a, b]) => [a > 0 ? bytes.lastIndexOf(LF, a - 1) + 1 : 0, b]);

/**
 * {@link overwrittenLines}, and whether `bytes` may move to another row and back (../views/may-assemble.ts's
 * mayMoveRows, or more: an escape inside a string counts), told on the way: the text readers'
 * pass, which needs both, makes one pass over a window that goes back on its lines. `goesBack`: the
 * caller's own quick check found that they may (its native searches are not made again).
 */
export function overwrittenScan(bytes: Uint8Array, goesBack = false): OverwrittenScan {
  const ranges: Array<[number, number]> = [];
  const erased: Array<[number, number]> = [];
  // Nothing goes back over a line without one of these (a pipe's lines, CR LF ends and colours):
  // native searches and a look at each escape sequence tell it, unless the caller's did (`goesBack`).
  if (!goesBack && redraws(bytes, GOES_BACK) === 0) return { lines: ranges, erased, rows: redraws(bytes, MOVES_ROWS) !== 0 };
  // A C1 CSI is not looked at below: any is taken for a move.
  let rows = hasC1Csi(bytes);
  const n = bytes.length;
  let start = 0;
  let drawn = false;
  /**
   * 0: nothing written over; 1: written over after a `\r` (an erase to the end undoes it); 2: by a
   * move back; 3: a redraw after `\r` shorter than the row, then erased to the end (nothing old is
   * left on the row, but it read the redraw over the old text for a moment).
   */
  let over = 0;
  // The cursor's column since the last `\r` and how far the row's text reaches, in cells as the grid
  // draws them (cellsOf: a character of several bytes is one cell, DEL none): counted in bytes, `€`s
  // or DELs made a redraw shorter than its row look as long, and the token it put together unseen.
  let col = 0;
  let row = 0;
  // Where a replay from column 0 draws the row as it stands (the line's start, or the `\r` of a
  // redraw that covered the row and erased the rest), the last `\r`, and rowFrom at the first
  // shorter redraw erased (over 3): an erased line is replayed from there, not from its start (a
  // progress bar's line of a hundred redraws, its last one shorter: two of them replayed).
  let rowFrom = 0;
  let lastCr = -1;
  let erasedFrom = -1;
  // The bytes as words, from the first word boundary: a run of text is passed over 4 bytes at a time.
  const head = (4 - (bytes.byteOffset & 3)) & 3;
  const words = n >= head + 4 ? new Uint32Array(bytes.buffer, bytes.byteOffset + head, (n - head) >> 2) : NO_WORDS;
  // One loop, its state in locals (no closure holds them: this runs over every byte of a redrawn window).
  for (let i = 0; i < n; i++) {
    const b = bytes[i]!;
    if (b >= 0x20) {
      if (b === 0x7f) continue; // DEL draws nothing (nor moves the cursor)
      drawn = true;
      // Once drawn, text changes nothing until the next control: whole words of it are passed over.
      const next = b < 0x7f && !(bytes[i + 1]! >= 0x20) ? i + 1 : textEnd(bytes, words, head, i);
      col += next === i + 1 && b < 0x7f ? 1 : highBytes ? cellsOf(bytes, i, next) : next - i;
      i = next - 1;
    } else if (b === LF) {
      if (over === 3) addRange(erased, erasedFrom, i + 1);
      else if (over !== 0) addRange(ranges, start, i + 1);
      start = i + 1;
      rowFrom = start;
      lastCr = -1;
      erasedFrom = -1;
      drawn = false;
      over = 0;
      col = 0;
      row = 0;
    } else if (b === CR) {
      if (bytes[i + 1] !== LF && drawn && (over === 0 || over === 3)) over = 1;
      if (col > row) row = col;
      col = 0;
      lastCr = i;
    } else if (b === BS) {
      if (drawn) over = 2;
      if (col > 0) col--;
    } else if (b === TAB) {
      if (over === 1 || over === 3) over = 2; // past old text without drawing: an erase after it leaves that text
      col = (col | 7) + 1;
    } else if (b === ESC) {
      const next = bytes[i + 1];
      if (next === 0x5b) {
        const j = csiFinal(bytes, i + 2);
        const final = bytes[j];
        if (final !== undefined && final < 0x20) {
          // A control inside the sequence is run by the terminal, which goes on with the sequence: its
          // end is not known here, so the line is taken as written over, and the control is looked at.
          if (drawn) over = 2;
          rows = true;
          i = j - 1;
        } else {
          if (final !== undefined && ROW_FINAL[final] === 1) rows = true;
          if (final === 0x4b) {
            if (j === i + 3 && bytes[i + 2] === 0x32) {
              drawn = false; // ESC[2K: the whole line erased
              over = 0;
              row = 0;
            } else if (j === i + 2 || (j === i + 3 && bytes[i + 2] === 0x30)) {
              // A redraw after `\r` that erases what it did not cover, unless it was shorter than the
              // row: then, before the erase, the row read the redraw and the old text after it, which
              // may put a token together (`ghp_` and 12 over a line ending in 24 more) for a moment.
              if (over === 1 && col < row) {
                over = 3;
                if (erasedFrom < 0) erasedFrom = rowFrom;
              } else if (over === 1) {
                over = 0; // a longer redraw covered the row: an earlier shorter one is shown nowhere
                erasedFrom = -1;
              }
              if (col >= row && lastCr >= start && over !== 2) rowFrom = lastCr;
              row = col;
            }
          } else if (final !== undefined && (BACK_FINAL[final] === 1 || final === 0x43 || final === 0x61)) {
            // A move back over drawn text; CUF, HPR: past old text, as a TAB. Either moves the column.
            if (BACK_FINAL[final] === 1 ? drawn : over === 1 || over === 3) over = 2;
            col = movedTo(bytes, i + 2, j, col);
          }
          i = j;
        }
      } else if (next === 0x38) {
        if (drawn) over = 2; // ESC 8: the saved cursor restored
        rows = true;
        i++;
      } else if (next === 0x5d || next === 0x50 || next === 0x5f || next === 0x5e || next === 0x58) {
        // A string (a title, a shell's mark): drawn nowhere, up to BEL or ESC. An ESC ends it
        // (ST when `\` follows), and any other sequence it begins is run as the terminal runs it:
        // `ESC[24D ESC[K` inside a title moves back and erases (taken for a move too).
        let j = i + 2;
        while (j < n && bytes[j] !== BEL && bytes[j] !== ESC) j++;
        if (j < n && bytes[j] === ESC && bytes[j + 1] !== 0x5c) {
          rows = true;
          i = j - 1;
        } else i = bytes[j] === BEL ? j : j + 1;
      } else {
        if (next !== undefined && ESC_ROWS[next] === 1) rows = true;
        // The byte after is the sequence's (`ESC (`, `ESC 7`); a control or another ESC there is run
        // by the terminal, and looked at here (`ESC ESC[5D` moves back, `ESC \r` returns).
        if (next !== undefined && next >= 0x20) i++;
      }
    }
  }
  if (start < n && over === 3) addRange(erased, erasedFrom, n);
  else if (start < n && over !== 0) addRange(ranges, start, n);
  return { lines: ranges, erased, rows };
}

export interface OverwrittenScan {
  /** The lines that may show the rest of text written over (overwrittenLines but `erased`). */
  readonly lines: Array<[number, number]>;
  /**
   * The lines whose last redraw after `\r` was shorter than the row and erased its rest: they show
   * nothing written over (no raw masking needed), but the row read the redraw over the old text
   * before the erase, which only a replay sees (`ghp_` and 12 over a line that ends in 24 more).
   * Each from where a replay at column 0 draws that row (the line's start, or a `\r` of it) to the
   * line's end ({@link wholeLines}: from the line's start).
   */
  readonly erased: Array<[number, number]>;
  /** The bytes may move to another row and back. */
  readonly rows: boolean;
}

/** Two lists of ranges of whole lines (each in order, no line in both) as one, in order, touching ranges joined. */
export function joinRanges(
  a: ReadonlyArray<readonly [number, number]>,
  b: ReadonlyArray<readonly [number, number]>,
): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const all = [...a, ...b].sort((x, y) => x[0] - y[0]);
  for (const [s, e] of all) addRange(out, s, e);
  return out;
}

/** Whether `bytes` hold a C1 CSI (C2 9B). */
function hasC1Csi(bytes: Uint8Array): boolean {
  for (let i = bytes.indexOf(0x9b); i >= 0; i = bytes.indexOf(0x9b, i + 1)) if (bytes[i - 1] === 0xc2) return true;
  return false;
}

/**
 * The column a CSI `bytes[p, j)` (its parameters, its final at `j`) that moves along the line leaves the
 * cursor at, from `col`: the row's reach takes in where text is drawn after a move forward or to a
 * column (`ESC[18C` then 4 letters reach 22 cells, not 4: a redraw of 18 is shorter), and a move back
 * makes the next redraw no longer than it is. A move to another row (H, f, u) keeps `col` (such bytes
 * are the grid's, which replays them all).
 */
function movedTo(bytes: Uint8Array, p: number, j: number, col: number): number {
  let count = 0;
  for (let k = p; k < j && bytes[k]! >= 0x30 && bytes[k]! <= 0x39; k++) count = Math.min(MAX_MOVE, count * 10 + bytes[k]! - 0x30);
  const n = Math.max(1, count);
  switch (bytes[j]) {
    case 0x43: // CUF
    case 0x61: // HPR
      return col + n;
    case 0x44: // CUB
      return Math.max(0, col - n);
    case 0x47: // CHA
    case 0x60: // HPA
      return n - 1;
    case 0x5a: // CBT: back n tab stops
      return Math.max(0, ((col - 1) & ~7) - 8 * (n - 1));
    default:
      return col;
  }
}

/** A bound on a move's count (a terminal stops at its last column; the row's reach needs no more). */
const MAX_MOVE = 1 << 16;

/**
 * Just past the run of text from `bytes[i]` (a byte from 0x20 on) to the next control, whole words of
 * it passed over; `highBytes` then tells whether a byte of it was DEL or above (not one cell a byte).
 */
function textEnd(bytes: Uint8Array, words: Uint32Array, head: number, i: number): number {
  highBytes = bytes[i]! >= 0x7f;
  const wordsEnd = head + words.length * 4;
  let next = i + 1 >= head && i + 8 < wordsEnd ? beforeControl(bytes, words, head, i + 1) : i + 1;
  for (const n = bytes.length; next < n && bytes[next]! >= 0x20; next++) if (bytes[next]! >= 0x7f) highBytes = true;
  return next;
}

/** Set by {@link textEnd} (a module's variable: the scan's loop makes no object a run). */
let highBytes = false;

/**
 * The cells text bytes `[a, b)` (none below 0x20) draw on the grid (./drawn-replay.ts, ./utf8-units.ts):
 * one a UTF-16 unit of their UTF-8 (a character of 4 bytes two; a maximal bad part one, U+FFFD, as
 * the decoder makes it), DEL and C1 controls (U+0080 to U+009F) none. A bound no redraw can stretch:
 * a cell more than the grid draws would make a shorter redraw pass for one that covers its row.
 */
function cellsOf(bytes: Uint8Array, a: number, b: number): number {
  const text = UTF8.decode(bytes.subarray(a, b));
  return text.length - (text.match(NOT_DRAWN)?.length ?? 0);
}

const UTF8 = new TextDecoder("utf-8", { ignoreBOM: true });
const NOT_DRAWN = /[\x7f-\x9f]/g;

/**
 * Just before the first byte below 0x20 from `from` on, or the end of `words` (`bytes` from `head`
 * on as words): the bytes up to the first word boundary one by one, then a word at a time. Sets
 * `highBytes` when a byte passed is 0x7f or above.
 */
function beforeControl(bytes: Uint8Array, words: Uint32Array, head: number, from: number): number {
  let i = from;
  for (; (i - head) & 3; i++) {
    if (bytes[i]! < 0x20) return i;
    if (bytes[i]! >= 0x7f) highBytes = true;
  }
  let k = (i - head) >> 2;
  const count = words.length;
  // A word holds a byte below 0x20 when this is not 0 (exact for any bound up to 0x80); one of 0x7f
  // or above when `x | (x + 0x01010101)` has a high bit (a carry out of 0xff only adds false alarms).
  let high = 0;
  while (k < count) {
    const x = words[k]!;
    if (((x - 0x20202020) & ~x & 0x80808080) !== 0) break;
    high |= x | (x + 0x01010101);
    k++;
  }
  if ((high & 0x80808080) !== 0) highBytes = true;
  return head + k * 4;
}

/** The line `[start, end)` added to `ranges`, joined to the last range when it ends where the line begins. */
function addRange(ranges: Array<[number, number]>, start: number, end: number): void {
  const last = ranges[ranges.length - 1];
  if (last && last[1] === start) last[1] = end;
  else ranges.push([start, end]);
}

const NO_WORDS = new Uint32Array(0);

/** CSI finals that move to another row or save or restore the cursor (as ./may-assemble.ts's mayMoveRows). */
const ROW_FINAL = byteTable([..."ABEFHfdsu"].map((c) => [c.charCodeAt(0), 1] as const));
/** ESC 7, D, E, M, c (ESC 8 is taken above). */
const ESC_ROWS = byteTable([..."7DEMc"].map((c) => [c.charCodeAt(0), 1] as const));

/** CSI finals that move the cursor back along a line, or anywhere: D, G, H, f, `, u, and Z (back a tab stop). */
const BACK_FINAL = byteTable([..."DGHf`uZ"].map((c) => [c.charCodeAt(0), 1] as const));
