/**
 * Which bytes drew what a terminal shows: output replayed onto a grid of rows whose every cell
 * remembers the bytes that drew it. A secret written in pieces that the terminal puts together
 * (the second half first after a cursor move, re-printed after `\r`, fixed up with backspaces or
 * readline's edits, placed with `ESC[row;colH`) is whole only on the screen; masking the screen's
 * text and turning the bytes behind each masked cell into `*` masks it in the raw bytes too.
 *
 * The controls are parsed as the text view parses them (./_controls.ts); the grid adds what moves
 * between rows (CUP, HVP, VPA, CUU, CUD, CNL, CPL, ED, IND, NEL, RI, saved cursors). Rows are not
 * wrapped at the terminal's width: a long line is one row, so a secret the terminal wraps stays
 * whole. LF also goes to column 0, as the text view reads it (a PTY writes CR LF anyway).
 *
 * Only rows whose text is not simply their bytes in order (something was overwritten, erased,
 * deleted, inserted or skipped over) are shown to the caller: the others the raw masking sees
 * whole already. A row is shown before an edit destroys what it held (an overwrite begins, an
 * erase) and when it leaves the screen or the bytes end, once for each text it had.
 */
import { isAscii } from "node:buffer";
import { Grid, type CellLook } from "./drawn-grid.ts";
import { printableEnds, replay } from "./drawn-replay.ts";
import { Controls } from "./_controls.ts";
import { decodeUnits, UnitPieces } from "./utf8-units.ts";

export { mayAssemble } from "./may-assemble.ts";
export type { CellLook } from "./drawn-grid.ts";

/**
 * An edited row: its text (one UTF-16 unit a cell) and, for cell i, the bytes `[from[i], to[i])`
 * of the input that drew it (`from[i]` -1: a blank no byte drew).
 */
export type RowLook = (text: string, from: readonly number[], to: readonly number[]) => void;

export interface DrawnByOptions {
  /** The terminal's height in rows (meta.json's `rows`): absolute positions count from its top. */
  readonly rows: number;
  /**
   * The bytes are a session's first (a clear screen, the cursor at the top); otherwise they begin
   * somewhere in the middle, where the screen is most likely full and the cursor on its last row.
   */
  readonly fresh: boolean;
  /** Every character one at a time, decoded the long way: the reference the tests hold the fast way to. */
  readonly slow?: boolean;
}

/** Replays `bytes` onto a grid of `options.rows` rows; `look` is called with each edited row's texts. */
export function drawnBy(bytes: Uint8Array, options: DrawnByOptions, look: RowLook): void {
  drawnCells(bytes, options, (text, from, to) => {
    const cells = Array.from(from.subarray(0, text.length));
    look(text, cells, to ? Array.from(to.subarray(0, text.length)) : cells.map((f) => (f < 0 ? -1 : f + 1)));
  });
}

/** {@link drawnBy}, the cells handed over as they are. */
export function drawnCells(bytes: Uint8Array, options: DrawnByOptions, look: CellLook): void {
  const slow = options.slow === true;
  const ascii = !slow && isAscii(bytes);
  // Other bytes are decoded a piece at a time (./utf8-units.ts UnitPieces): the controls' state
  // survives pieces and cells hold byte offsets, so the replay is the same as over one piece.
  const whole = slow || ascii ? decodeUnits(bytes, slow) : undefined;
  const grid = new Grid(Math.max(1, options.rows), options.fresh, look, bytes, slow, ascii ? whole!.text : undefined);
  const controls = new Controls(grid);
  if (whole) replay(grid, controls, whole, slow, ascii ? printableEnds(bytes) : undefined);
  else for (let piece, pieces = new UnitPieces(bytes); (piece = pieces.next()); ) replay(grid, controls, piece, false);
  grid.end();
}
