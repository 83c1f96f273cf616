/**
 * The grid of ./drawn-by.ts for output that only redraws its current line: printable ASCII, CR, LF,
 * SGR and EL 0 or 2 (the language of ./rows-in-order.ts, where the check is in full). A progress
 * line redrawn with `\r ... ESC[K` is such output, and when a redraw is shorter than the last the
 * grid looks at the row before the erase (the new text over the old one's tail). The grid replays it
 * cell by cell through the controls' parser; here a row is a few segments (cells drawn by one run
 * of bytes each), and the same looks come out in the same order, at a fraction of the cost.
 *
 * Modelled on the grid (drawn-grid.ts) step by step: a row is shown before the first overwrite of a
 * run since the last `\r` or erase, before an erase that removes cells, and at the end; only when
 * edited and changed since, not its bytes in order, and not shown already as it is. What it does not
 * model makes it give up (undefined), and the caller runs the grid: any other byte or sequence,
 * text written past the row's end (blanks before it), a row left by LF that is not in byte order
 * (the grid shows it when it scrolls off, among later rows' looks), a row of MAX_COLS cells, a row
 * of more than MAX_SEGMENTS segments (a line coloured cell by cell and redrawn over itself: each
 * write splices the segments' arrays, and thousands of them cost far more than the grid's cells).
 */
import { isAscii } from "node:buffer";
import { onlySequences } from "./drawn-grid.ts";
import { printableEnds } from "./drawn-replay.ts";
import { MAX_COLS } from "./drawn-row.ts";
import { sgrOrEl } from "./rows-in-order.ts";

/**
 * Segments a row may have: a progress bar has one to three, a gradient bar one a cell. Past it the
 * grid replays the bytes (the same looks): a write costs a pass over the segments, and a row of
 * 16,000 cells coloured one by one and redrawn took 1.5 s where the grid takes 20 ms.
 */
const MAX_SEGMENTS = 256;
const LF = 0x0a;
const CR = 0x0d;
const ESC = 0x1b;

/** A look at a row: its text, and the byte that drew each cell (an ASCII window: one byte a cell). */
export interface LineLook {
  readonly text: string;
  readonly from: Int32Array;
}

/**
 * The looks the grid would make replaying `bytes`, in its order,
 * whatever its height and however fresh; undefined when `bytes` are not of the language above.
 */
export function lineRedrawLooks(bytes: Uint8Array): LineLook[] | undefined {
  if (!isAscii(bytes)) return undefined;
  const row = new SegmentRow(bytes);
  const runEnd = printableEnds(bytes);
  const n = bytes.length;
  for (let i = 0; i < n; ) {
    const b = bytes[i]!;
    if (b >= 0x20 && b < 0x7f) {
      const j = runEnd(i + 1);
      if (!row.write(i, j)) return undefined;
      i = j;
    } else if (b === CR) {
      row.home();
      i++;
    } else if (b === LF) {
      // The row leaves the cursor; the grid shows it when it scrolls off, among later rows' looks.
      if (!row.inOrder()) return undefined;
      row.clear();
      i++;
    } else if (b === ESC) {
      const end = sgrOrEl(bytes, i);
      if (end < 0) return undefined;
      if (bytes[end - 1] === 0x4b) row.erase(bytes[end - 2] === 0x32);
      i = end;
    } else return undefined;
  }
  row.show();
  return row.looks;
}

/**
 * One row as the grid keeps it, its cells as segments: `col0[k]` on, `len[k]` cells drawn by the
 * bytes `byte0[k]` on, one each, segments in column order, no gap between them.
 */
class SegmentRow {
  readonly looks: LineLook[] = [];
  col0: number[] = [];
  len: number[] = [];
  byte0: number[] = [];
  length = 0;
  col = 0;
  /** The grid's flags (drawn-grid.ts, drawn-row.ts): a run that may still show the row before its first overwrite, edited, changed. */
  runStart = true;
  edited = false;
  dirty = false;
  /** The text and cells' bytes the row was last shown with (a look's). */
  shown = "";
  shownFrom: Int32Array | undefined;

  /** The bytes as Latin-1 text (a row's text is sliced from it), made at the first look: most rows are never looked at. */
  #chars: string | undefined;

  constructor(private readonly bytes: Uint8Array) {}

  /** Bytes `[i, j)` drawn from the cursor on (the grid's putRun); false for what is not modelled. */
  write(i: number, j: number): boolean {
    const { col } = this;
    const end = col + j - i;
    if (col > this.length || end >= MAX_COLS || this.col0.length >= MAX_SEGMENTS) return false;
    if (col < this.length) {
      if (this.runStart) {
        this.show();
        this.runStart = false;
      }
      this.edited = true;
    }
    if (col === this.length || (col === 0 && end >= this.length)) {
      // Text after the row's end, or a redraw from column 0 at least as long: no old cell stays among the new.
      if (col === 0) this.#truncate(0);
      this.#push(col, j - i, i);
    } else if (col === 0 && this.col0.length === 1) {
      // A shorter redraw over a row of one run (a progress bar's): the new run, then the old one's rest.
      const old = this.byte0[0]!;
      this.len[0] = j - i;
      this.byte0[0] = i;
      this.#push(end, this.length - end, old + end);
    } else {
      // The segments `[k, m)` lie within the new cells, once the ones across `col` and `end` are split there.
      this.#cutAt(col);
      if (end < this.length) this.#cutAt(end);
      let k = 0;
      while (this.col0[k]! < col) k++;
      let m = k;
      while (m < this.col0.length && this.col0[m]! < end) m++;
      this.col0.splice(k, m - k, col);
      this.len.splice(k, m - k, j - i);
      this.byte0.splice(k, m - k, i);
    }
    if (end > this.length) this.length = end;
    this.dirty = true;
    this.col = end;
    return true;
  }

  home(): void {
    this.col = 0;
    this.runStart = true;
  }

  /** EL 0 (from the cursor to the end) or 2 (the whole row): shown first when it removes a cell. */
  erase(whole: boolean): void {
    this.runStart = true;
    const a = whole ? 0 : this.col;
    if (a >= this.length) return;
    this.show();
    this.#cutAt(a);
    let k = this.col0.length;
    while (k > 0 && this.col0[k - 1]! >= a) k--;
    this.#truncate(k);
    this.length = a;
    this.edited = this.dirty = true;
  }

  /** A new row (LF): empty, never shown; the cursor at column 0. */
  clear(): void {
    this.#truncate(0);
    this.length = this.col = 0;
    this.runStart = true;
    this.edited = this.dirty = false;
    this.shown = "";
    this.shownFrom = undefined;
  }

  /** Each cell drawn by the bytes right after the last's, or after only CSIs and two-byte ESCs (the grid's inByteOrder). */
  inOrder(): boolean {
    for (let s = 1; s < this.col0.length; s++) {
      const a = this.byte0[s - 1]! + this.len[s - 1]!;
      const b = this.byte0[s]!;
      if (b < a || (b !== a && !onlySequences(this.bytes, a, b))) return false;
    }
    return true;
  }

  /** The grid's show: a look when edited and changed since, not in byte order, and not shown as it is. */
  show(): void {
    if (!this.edited || !this.dirty) return;
    this.dirty = false;
    if (this.inOrder()) return;
    const { bytes } = this;
    const chars = (this.#chars ??= Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1"));
    let text = "";
    for (let s = 0; s < this.col0.length; s++) text += chars.slice(this.byte0[s]!, this.byte0[s]! + this.len[s]!);
    const from = new Int32Array(this.length);
    for (let s = 0; s < this.col0.length; s++)
      for (let c = 0, a = this.col0[s]!, b = this.byte0[s]!; c < this.len[s]!; c++) from[a + c] = b + c;
    if (text === this.shown && sameCells(this.shownFrom, from)) return;
    this.shown = text;
    this.shownFrom = from;
    this.looks.push({ text, from });
  }

  /** The segment holding column `col` split there (no segment then begins before `col` and ends after it). */
  #cutAt(col: number): void {
    for (let s = 0; s < this.col0.length; s++) {
      const a = this.col0[s]!;
      const l = this.len[s]!;
      if (a < col && col < a + l) {
        this.len[s] = col - a;
        this.col0.splice(s + 1, 0, col);
        this.len.splice(s + 1, 0, a + l - col);
        this.byte0.splice(s + 1, 0, this.byte0[s]! + col - a);
        return;
      }
    }
  }

  #truncate(k: number): void {
    this.col0.length = this.len.length = this.byte0.length = k;
  }

  #push(col: number, len: number, byte: number): void {
    this.col0.push(col);
    this.len.push(len);
    this.byte0.push(byte);
  }
}

/** The same bytes drew the same cells. */
function sameCells(a: Int32Array | undefined, b: Int32Array): boolean {
  if (a === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
