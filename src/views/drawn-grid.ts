/**
 * The grid ./drawn-by.ts replays bytes onto: rows of cells that remember the bytes that drew them,
 * the cursor, the moves between rows, and when a row is shown to the caller (before an edit destroys
 * what it held, when it leaves the screen, at the end), unless its cells are its bytes in order.
 */
import type { ControlTarget } from "./_controls.ts";
import { MAX_COLS, Row } from "./drawn-row.ts";
import { byteTable } from "./may-assemble.ts";

/**
 * {@link RowLook} with the row's cells, `text.length` of them: `from` and `to` the row's own arrays
 * (read them during the call, copy what is kept; `to` undefined in an ASCII window, where each
 * cell's bytes end one after its `from`). No copy or view is made for a look (thousands a redrawn
 * window): the caller copies only what it keeps.
 */
export type CellLook = (text: string, from: Int32Array, to: Int32Array | undefined) => void;

/** H f d A B E F J s u: the CSIs {@link Grid.rowCsi} takes. */
const ROW_FINAL = byteTable([..."HfdABEFJsu"].map((c) => [c.charCodeAt(0), 1] as const));

/** The screen: `height` rows, the cursor on one of them; rows that scroll off are shown and dropped. */
export class Grid implements ControlTarget {
  col = 0;
  readonly max = MAX_COLS;
  private row: number;
  private screen: Row[];
  private saved = { row: 0, col: 0 };
  /**
   * The run of text since the last move has overwritten no drawn cell yet: the row is shown before
   * it does (a run that begins on blanks, `\r` and a line over a token placed further along the
   * row, shows it when it reaches the token).
   */
  private runStart = true;

  constructor(
    private readonly height: number,
    fresh: boolean,
    private readonly look: CellLook,
    private readonly bytes: Uint8Array,
    /** Rows checked for byte order cell by cell, their known prefix ignored (the tests' reference). */
    private readonly slow: boolean,
    /** An ASCII window's bytes as text (one character a byte): rows' texts are sliced from it. */
    private readonly chars: string | undefined,
  ) {
    this.screen = Array.from({ length: height }, () => new Row());
    this.row = fresh ? 0 : height - 1;
  }

  private get current(): Row {
    return this.screen[this.row]!;
  }

  /**
   * Shows `row` to the caller if it was edited and has changed since, and its cells are not what
   * the raw masking sees anyway (a progress line redrawn whole: each cell drawn by the byte after
   * the last, or with only escape sequences between them).
   */
  private show(row: Row): void {
    if (!row.edited || !row.dirty) return;
    row.dirty = false;
    const ascii = this.chars !== undefined;
    if (inByteOrder(row, this.bytes, this.slow ? 0 : row.chain, ascii)) return;
    const text = row.text(this.chars);
    if (row.shownAs(text)) return;
    row.keepShown(text);
    this.look(text, row.from, ascii ? undefined : row.to);
  }

  put(code: number, from: number, to: number): void {
    const r = this.current;
    const { col } = this;
    if (col >= MAX_COLS) return;
    this.beginPut(r, col);
    r.reserve(col + 1);
    r.codes[col] = code;
    r.from[col] = from;
    r.to[col] = to;
    if (col === r.length) r.length++;
    this.extendChain(r, col, col + 1);
    r.dirty = true;
    this.col = col + 1;
  }

  /**
   * The printable ASCII units `[u0, u1)` of the text, drawn by the bytes from `byte` on, one each: what as many
   * {@link put}s would do (the row shown before the first overwrites a drawn cell), at once.
   */
  putRun(u0: number, u1: number, byte: number): void {
    const r = this.current;
    const { col } = this;
    if (col >= MAX_COLS) return;
    const end = Math.min(col + u1 - u0, MAX_COLS);
    // The run's first overwrite of a drawn cell past its start: the cells before it drawn first, as put would.
    const drawn = this.runStart && col < r.length && r.from[col]! < 0 ? firstDrawn(r, col + 1, Math.min(end, r.length)) : -1;
    if (drawn > 0) {
      this.putRun(u0, u0 + drawn - col, byte);
      this.putRun(u0 + drawn - col, u1, byte + drawn - col);
      return;
    }
    this.beginPut(r, col);
    r.reserve(end);
    // An ASCII character's unit is its byte (a loop: a subarray and set cost more on short runs).
    const { codes, from, to } = r;
    const { bytes } = this;
    if (this.chars !== undefined) {
      // An ASCII window: a row's text is sliced from the window's by `from` alone, and each cell's
      // bytes end one after it (`to`, read through cellEnd): only `from` is written.
      for (let c = col, b = byte; c < end; c++, b++) from[c] = b;
    } else
      for (let c = col, b = byte; c < end; c++, b++) {
        codes[c] = bytes[b]!;
        from[c] = b;
        to[c] = b + 1;
      }
    if (end > r.length) r.length = end;
    this.extendChain(r, col, end);
    r.dirty = true;
    this.col = end;
  }

  /** Cells `[col, end)` of `r` were just drawn by bytes in order: the known prefix in order after it. */
  private extendChain(r: Row, col: number, end: number): void {
    const keep = Math.min(r.chain, col);
    r.chain = keep === col && (col === 0 || linked(r, col, this.bytes, this.chars !== undefined)) ? end : keep;
  }

  /** Before a cell is written at `col`: an overwrite edits the row (shown first at the run's first drawn cell); a gap is padded. */
  private beginPut(r: Row, col: number): void {
    if (col < r.length) {
      if (this.runStart && r.from[col]! >= 0) {
        this.show(r);
        this.runStart = false;
      }
      r.edited = true;
    } else if (col > r.length) {
      r.padTo(col);
      r.edited = true;
    }
  }

  /** TAB: to the next stop of 8; past the row's end it reads as blanks, as the text's TAB would. */
  tab(): void {
    const next = Math.min(MAX_COLS, (Math.floor(this.col / 8) + 1) * 8);
    const r = this.current;
    if (this.col >= r.length) r.padTo(next);
    this.moveTo(next);
  }

  /** LF (to column 0, as the text view reads it), IND and NEL: down a row, scrolling at the bottom. */
  lineFeed(home: boolean): void {
    if (home) this.col = 0;
    this.runStart = true;
    if (this.row < this.height - 1) this.row++;
    else {
      const gone = this.screen.shift()!;
      this.show(gone);
      gone.clear();
      this.screen.push(gone);
    }
  }

  moveTo(col: number): void {
    this.col = Math.max(0, Math.min(col, MAX_COLS));
    this.runStart = true;
  }

  private toRow(row: number): void {
    this.row = Math.max(0, Math.min(row, this.height - 1));
    this.runStart = true;
  }

  eraseInLine(mode: number): void {
    this.runStart = true;
    const r = this.current;
    const { col } = this;
    if (mode === 0) this.cut(r, col, r.length, true);
    else if (mode === 1) this.cut(r, 0, Math.min(col + 1, r.length), false);
    else if (mode === 2) this.cut(r, 0, r.length, true);
  }

  eraseChars(n: number): void {
    this.runStart = true;
    this.cut(this.current, this.col, Math.min(this.col + n, this.current.length), false);
  }

  deleteChars(n: number): void {
    this.runStart = true;
    const r = this.current;
    const { col } = this;
    if (col >= r.length) return;
    this.show(r);
    const gone = Math.min(n, r.length - col);
    for (const cells of [r.codes, r.from, r.to]) cells.copyWithin(col, col + gone, r.length);
    r.length -= gone;
    r.chain = Math.min(r.chain, col);
    r.edited = r.dirty = true;
  }

  insertBlanks(n: number): void {
    this.runStart = true;
    const r = this.current;
    const { col } = this;
    if (col >= r.length) return;
    const k = Math.min(n, MAX_COLS - col);
    const length = Math.min(r.length + k, MAX_COLS);
    r.reserve(length);
    for (const cells of [r.codes, r.from, r.to]) cells.copyWithin(col + k, col, length - k);
    r.blank(col, col + k);
    r.length = length;
    r.chain = Math.min(r.chain, col);
    r.edited = r.dirty = true;
  }

  /** Cells `[a, b)` of `r` erased: removed when they end the row (`drop`), else blanked. Shown first. */
  private cut(r: Row, a: number, b: number, drop: boolean): void {
    if (a >= b) return;
    this.show(r);
    if (drop && b === r.length) r.length = a;
    else r.blank(a, b);
    r.chain = Math.min(r.chain, a);
    r.edited = r.dirty = true;
  }

  /** Rows `[a, b)` of the screen cleared, each shown first. */
  private clearRows(a: number, b: number): void {
    for (let i = Math.max(0, a); i < Math.min(b, this.height); i++) {
      const r = this.screen[i]!;
      if (r.length === 0) continue;
      this.cut(r, 0, r.length, true);
    }
  }

  /** CSIs that move between rows, ED, and the saved cursor; the line edits are left to the controls. */
  rowCsi(final: number, params: string): boolean {
    // Most CSIs are colours: their parameters are not read here.
    if (ROW_FINAL[final] !== 1) return false;
    const [p1 = 0, p2 = 0] = params.split(";").map((p) => Number.parseInt(p, 10) || 0);
    const n = Math.max(1, p1);
    switch (final) {
      case 0x48: // H: CUP
      case 0x66: // f: HVP
        this.toRow(n - 1);
        this.moveTo(Math.max(1, p2) - 1);
        return true;
      case 0x64: // d: VPA
        this.toRow(n - 1);
        return true;
      case 0x41: // A: CUU
        this.toRow(this.row - n);
        return true;
      case 0x42: // B: CUD
        this.toRow(this.row + n);
        return true;
      case 0x45: // E: CNL
      case 0x46: // F: CPL
        this.toRow(this.row + (final === 0x45 ? n : -n));
        this.moveTo(0);
        return true;
      case 0x4a: // J: ED (3 clears only the scrollback)
        if (p1 === 0 || p1 === 2) this.clearRows(this.row + 1, this.height);
        if (p1 === 1 || p1 === 2) this.clearRows(0, this.row);
        if (p1 <= 2) this.eraseInLine(p1);
        return true;
      case 0x73: // s: SCOSC
      case 0x75: // u: SCORC
        if (params !== "") return false;
        this.escape(final === 0x73 ? 0x37 : 0x38);
        return true;
    }
    return false;
  }

  /** ESC 7/8 (save, restore the cursor), D (IND), E (NEL), M (RI), c (RIS). */
  escape(final: number): void {
    if (final === 0x37) this.saved = { row: this.row, col: this.col };
    else if (final === 0x38) {
      this.toRow(this.saved.row);
      this.moveTo(this.saved.col);
    } else if (final === 0x44 || final === 0x45) this.lineFeed(final === 0x45);
    else if (final === 0x4d) this.reverseIndex();
    else if (final === 0x63) {
      this.clearRows(0, this.height);
      this.toRow(0);
      this.moveTo(0);
    }
  }

  /** RI: up a row; at the top the screen scrolls down and its last row leaves. */
  private reverseIndex(): void {
    if (this.row > 0) return this.toRow(this.row - 1);
    this.runStart = true;
    const gone = this.screen.pop()!;
    this.show(gone);
    gone.clear();
    this.screen.unshift(gone);
  }

  /** The bytes ended: every row still on the screen is shown. */
  end(): void {
    for (const r of this.screen) this.show(r);
  }
}

/** Each cell of `row` drawn by the bytes right after the last cell's, or after only CSIs and two-byte ESCs. */
function inByteOrder(row: Row, bytes: Uint8Array, known: number, ascii: boolean): boolean {
  const { from, length } = row;
  if (length === 0) return true;
  if (from[0]! < 0) return false;
  for (let i = Math.max(1, known); i < length; i++) if (!linked(row, i, bytes, ascii)) return false;
  return true;
}

/** Cell `i` of `row` drawn by the bytes right after cell `i - 1`'s, or after only CSIs and two-byte ESCs. */
function linked(row: Row, i: number, bytes: Uint8Array, ascii: boolean): boolean {
  const a = cellEnd(row, i - 1, ascii);
  const b = row.from[i]!;
  if (a < 0 || b < a) return false;
  return b === a || onlySequences(bytes, a, b);
}

/** Just past the bytes that drew cell `i` of `row` (-1 for a blank): in an ASCII window, one after its `from` (its `to` is not kept). */
function cellEnd(row: Row, i: number, ascii: boolean): number {
  if (!ascii) return row.to[i]!;
  const from = row.from[i]!;
  return from < 0 ? -1 : from + 1;
}

/** `bytes[a, b)` is only CSIs and two-byte ESC sequences: raw masking reads past them (an OSC it does not). */
export function onlySequences(bytes: Uint8Array, a: number, b: number): boolean {
  let j = a;
  while (j < b) {
    if (bytes[j] !== 0x1b || bytes[j + 1] === 0x5d || bytes[j + 1] === 0x50) return false;
    if (bytes[j + 1] !== 0x5b) j += 2;
    else {
      j += 2;
      while (j < b && bytes[j]! >= 0x20 && bytes[j]! <= 0x3f) j++;
      j++;
    }
  }
  return j === b;
}

/** The first cell of `r` in `[from, to)` some byte drew (a blank pad has none), or -1. */
function firstDrawn(r: Row, from: number, to: number): number {
  for (let c = from; c < to; c++) if (r.from[c]! >= 0) return c;
  return -1;
}
