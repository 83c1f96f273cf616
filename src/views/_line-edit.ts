/**
 * One line being drawn, as a terminal would hold it: text written at a cursor column overwrites
 * what is there, `\r` goes back to column 0, erases and cursor moves act within the line. Columns
 * are UTF-16 code units (a wide CJK character counts one, an emoji two): close to a terminal's
 * cells for the redraws programs do (`\r` and rewrite, erase to the end), cheap to compute.
 */

export class LineEdit {
  text = "";
  col = 0;
  /** The line grew past `max` and lost its end. */
  cut = false;

  constructor(readonly max: number) {}

  /**
   * Write `s` at the cursor, overwriting, and move past it. What falls past `max` is dropped and the
   * cursor stops there, so writes past the bound cost nothing (not a copy of the line each).
   */
  put(s: string): void {
    const { text, col, max } = this;
    if (col >= max) {
      this.cut = true;
      return;
    }
    if (col + s.length > max) {
      s = s.slice(0, max - col);
      this.cut = true;
    }
    if (col === text.length) this.text = text + s;
    else if (col > text.length) this.text = text + " ".repeat(col - text.length) + s;
    else this.text = text.slice(0, col) + s + text.slice(col + s.length);
    this.col = col + s.length;
  }

  /** Cursor to column `col` (0-based), kept within the line's bound. */
  moveTo(col: number): void {
    this.col = Math.max(0, Math.min(col, this.max));
  }

  /** EL: 0 erases from the cursor to the end, 1 from the start through the cursor, 2 the whole line. */
  eraseInLine(mode: number): void {
    const { text, col } = this;
    if (mode === 0) {
      if (col < text.length) this.text = text.slice(0, col);
    } else if (mode === 1) {
      const through = Math.min(col + 1, text.length);
      this.text = " ".repeat(through) + text.slice(through);
    } else if (mode === 2) this.text = "";
  }

  /** ECH: blank `n` characters from the cursor, without moving it. */
  eraseChars(n: number): void {
    const { text, col } = this;
    if (col >= text.length) return;
    const to = Math.min(col + n, text.length);
    this.text = text.slice(0, col) + " ".repeat(to - col) + text.slice(to);
  }

  /** DCH: remove `n` characters at the cursor, pulling the rest left. */
  deleteChars(n: number): void {
    if (this.col < this.text.length) this.text = this.text.slice(0, this.col) + this.text.slice(this.col + n);
  }

  /** ICH: insert `n` blanks at the cursor, pushing the rest right. */
  insertBlanks(n: number): void {
    const { text, col } = this;
    if (col >= text.length) return;
    this.text = (text.slice(0, col) + " ".repeat(n) + text.slice(col)).slice(0, this.max);
  }

  /** Start the next line. */
  reset(): void {
    this.text = "";
    this.col = 0;
    this.cut = false;
  }
}
