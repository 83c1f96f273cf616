/**
 * A row of the grid of ./drawn-by.ts: its cells, the bytes that drew each, whether it is still its
 * bytes in order, and what it was last shown as.
 */

/** Cells kept per row: a cursor sent far to the right costs no more than this. */
export const MAX_COLS = 1 << 14;
const SPACE = 0x20;

/**
 * One row of cells in typed arrays (`length` of them in use): a row is written, overwritten and
 * checked for byte order on every redraw, and plain arrays of numbers made that most of the cost.
 */
export class Row {
  codes = new Uint16Array(64);
  from = new Int32Array(64);
  to = new Int32Array(64);
  length = 0;
  /**
   * Cells `[0, chain)` are known to be drawn in byte order (each by the bytes after the last's, or
   * after only sequences): a progress line redrawn from column 0 is known in order without a look
   * at its cells, and one with an old tail is known not to be at the first cell after the new text.
   */
  chain = 0;
  /** Its text is no longer its bytes in order. */
  edited = false;
  /** Changed since it was last shown. */
  dirty = false;
  /** The text it was last shown with. */
  shown = "";
  /** Which bytes drew each cell when it was last shown (`shownLength` of them; -1: not shown since it was cleared). */
  shownFrom = new Int32Array(0);
  shownLength = -1;

  /** Room for `n` cells. */
  reserve(n: number): void {
    if (n <= this.codes.length) return;
    const size = Math.min(Math.max(n, this.codes.length * 2), MAX_COLS + 1);
    for (const key of ["codes", "from", "to"] as const) {
      const bigger = new (this[key].constructor as Int32ArrayConstructor)(size);
      bigger.set(this[key].subarray(0, this.length));
      (this as { [k in typeof key]: Int32Array | Uint16Array })[key] = bigger;
    }
  }

  /** Blanks up to column `col` (exclusive), drawn by no byte. */
  padTo(col: number): void {
    if (col <= this.length) return;
    this.reserve(col);
    this.blank(this.length, col);
    this.length = col;
  }

  /** Cells `[a, b)` blank, drawn by no byte. */
  blank(a: number, b: number): void {
    this.codes.fill(SPACE, a, b);
    this.from.fill(-1, a, b);
    this.to.fill(-1, a, b);
  }

  /** Empty again, as a new row (a row that scrolled off is used for the one scrolling in). */
  clear(): void {
    this.length = this.chain = 0;
    this.edited = this.dirty = false;
    this.shown = "";
    this.shownLength = -1;
  }

  /**
   * Remembers the cells' bytes as shown, in a copy of its own kept from show to show (a full-screen
   * program shows nearly every row of every frame: a new array each was a tenth of its pass).
   */
  keepShown(text: string): void {
    this.shown = text;
    if (this.shownFrom.length < this.length) this.shownFrom = new Int32Array(Math.max(this.length, this.shownFrom.length * 2, 64));
    const { from, shownFrom, length } = this;
    for (let i = 0; i < length; i++) shownFrom[i] = from[i]!;
    this.shownLength = this.length;
  }

  /**
   * Shown already as it is: the same text drawn by the same bytes. The same text drawn again by
   * other bytes (erased and assembled again, or redrawn over itself) is shown again, or those
   * bytes would stay unmasked.
   */
  shownAs(text: string): boolean {
    if (text !== this.shown || this.shownLength !== this.length) return false;
    for (let i = 0; i < this.length; i++) if (this.shownFrom[i] !== this.from[i]) return false;
    return true;
  }

  /**
   * Its text. `chars`: the window's bytes as text, one character a byte (an ASCII window, where
   * each cell is drawn by one byte): the row is read as the runs of its cells drawn by consecutive
   * bytes, each a slice of it (a redrawn row is a run or two), blanks between.
   */
  text(chars?: string): string {
    if (chars !== undefined) return this.#runs(chars);
    let s = "";
    // fromCharCode keeps a lone surrogate (half a pair overwritten) where a decoder would not.
    for (let i = 0; i < this.length; i += 4096)
      s += String.fromCharCode.apply(null, this.codes.subarray(i, Math.min(i + 4096, this.length)) as unknown as number[]);
    return s;
  }

  #runs(chars: string): string {
    const { from, length } = this;
    let s = "";
    for (let c = 0; c < length; ) {
      const a = from[c]!;
      if (a < 0) {
        let e = c + 1;
        while (e < length && from[e]! < 0) e++;
        s += " ".repeat(e - c);
        c = e;
        continue;
      }
      let e = c + 1;
      while (e < length && from[e] === a + (e - c)) e++;
      s += chars.slice(a, a + (e - c));
      c = e;
    }
    return s;
  }
}
