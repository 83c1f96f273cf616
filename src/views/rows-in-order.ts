/**
 * A check before the grid of ./drawn-by.ts that proves it would show nothing: bytes whose every row
 * stays its bytes in order (each cell drawn by the byte after the last cell's, or after only
 * sequences) at every moment the grid looks at a row. The grid shows only rows that are not
 * (./drawn-grid.ts `show`), so for such bytes it calls its look for none and masks nothing: the
 * replay can be skipped with the same answer. A spinner's tool that clears the line before every
 * line (`ESC[2K\r`), a progress bar whose redraws never get shorter, `\r` over an empty row.
 *
 * Only a small language is taken, modelled exactly on the grid; anything else says false (the grid
 * runs as before): printable ASCII, LF, CR, SGR (`ESC[...m`, parameters of digits, `;` and `:`), EL
 * 0 and 2 (`ESC[K`, `ESC[0K`, `ESC[2K`). In it a row is its cells `[0, length)` and the cursor's
 * column; nothing moves to another row but LF, which leaves a row for good (rows below the cursor
 * are blank, a scrolled row is cleared). A row stops being in order only when text written after
 * `\r` over a longer row stops short of its end (new cells, then old ones: a look would follow at the
 * next erase, `\r` and write, LF or end), or when text is written past the row's end after an EL 2
 * that left the cursor out there (blanks before it). Both say false.
 */
import { isAscii } from "node:buffer";
import { printableEnds } from "./drawn-replay.ts";
import { MAX_COLS } from "./drawn-row.ts";

const LF = 0x0a;
const CR = 0x0d;
const ESC = 0x1b;

/** Whether the grid replaying `bytes` (ASCII, as above) would find every row it looks at in byte order. */
export function drawsInOrder(bytes: Uint8Array): boolean {
  const n = bytes.length;
  if (!isAscii(bytes)) return false;
  // Runs of text (most of the bytes) are passed a word at a time, as the replay passes them.
  const runEnd = printableEnds(bytes);
  /** The row's length and the cursor's column. */
  let length = 0;
  let col = 0;
  for (let i = 0; i < n; ) {
    const b = bytes[i]!;
    if (b >= 0x20 && b < 0x7f) {
      const start = i;
      i = runEnd(i + 1);
      // Past the row's end with blanks between (only after EL 2 away from column 0): not in order.
      if (col > length) return false;
      col += i - start;
      if (col >= MAX_COLS) return false;
      if (col > length) length = col;
      continue;
    }
    // Written over from column 0 and stopped short of the old end: new cells, then old ones. Only more
    // text (through sequences that draw nothing) may still cover the rest.
    const short = col > 0 && col < length;
    if (b === ESC) {
      const end = sgrOrEl(bytes, i);
      if (end < 0) return false;
      if (bytes[end - 1] === 0x4b) {
        if (short) return false;
        // EL 0 at the row's end erases nothing; at column 0 (or EL 2) the row is shown in order, then emptied.
        length = bytes[end - 2] === 0x32 ? 0 : Math.min(length, col);
      }
      i = end;
    } else if (b === CR) {
      if (short) return false;
      col = 0;
      i++;
    } else if (b === LF) {
      if (short) return false;
      length = col = 0;
      i++;
    } else return false;
  }
  return !(col > 0 && col < length);
}

/**
 * Just past the SGR or EL (0 or 2) that begins at `bytes[i]` (an ESC), or -1 for any other
 * sequence or one cut at the end: the grid's parser reads other parameters, private markers,
 * intermediates and controls inside differently, and this check takes none of them.
 */
export function sgrOrEl(bytes: Uint8Array, i: number): number {
  if (bytes[i + 1] !== 0x5b) return -1;
  let j = i + 2;
  const n = bytes.length;
  while (j < n) {
    const c = bytes[j]!;
    if ((c >= 0x30 && c <= 0x39) || c === 0x3b || c === 0x3a) j++;
    else break;
  }
  if (j >= n) return -1;
  const final = bytes[j]!;
  if (final === 0x6d) return j + 1;
  if (final !== 0x4b) return -1;
  const params = j - (i + 2);
  // "", "0" or "2" only: EL 1 blanks cells before the cursor, "0;5" and the like are left to the grid.
  if (params === 0) return j + 1;
  if (params === 1 && (bytes[j - 1] === 0x30 || bytes[j - 1] === 0x32)) return j + 1;
  return -1;
}
