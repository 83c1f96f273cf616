/**
 * Columns for people: each padded to its widest cell in terminal columns (Bun.stringWidth), two
 * spaces apart, the last one never padded and cut to what is left of the terminal's width. When
 * that leaves the last column too little, the columns named droppable go first, in their order.
 */
import { fitWidth, visible } from "./format.ts";
import { paint, type Style } from "./paint.ts";

export interface Cell {
  readonly text: string;
  readonly style?: Style;
}

export interface TableOptions {
  readonly colour: boolean;
  /** The terminal's columns; undefined (not a terminal) cuts nothing. */
  readonly width?: number;
  /** Indexes of columns that may go, first to last, so the last column keeps {@link MIN_LAST} columns. */
  readonly droppable?: readonly number[];
}

const GAP = "  ";
const MIN_LAST = 24;

export function renderTable(cells: readonly (readonly Cell[])[], options: TableOptions): string[] {
  // Cells hold what programs and the file system said: no control character reaches the terminal.
  const rows = cells.map((row) => row.map((cell) => ({ ...cell, text: visible(cell.text) })));
  const columns = Math.max(0, ...rows.map((row) => row.length));
  const widths = Array.from({ length: columns - 1 }, (_, i) => Math.max(0, ...rows.map((row) => Bun.stringWidth(row[i]?.text ?? ""))));
  const kept = new Set(widths.keys());
  const lead = () => [...kept].reduce((sum, i) => sum + widths[i]! + GAP.length, 0);
  for (const i of options.droppable ?? []) if (options.width !== undefined && options.width - lead() < MIN_LAST) kept.delete(i);
  const room = options.width === undefined ? undefined : Math.max(1, options.width - lead());
  return rows.map((row) =>
    row
      .flatMap((cell, i) => {
        if (i < columns - 1 && !kept.has(i)) return [];
        const last = i === columns - 1;
        const text = last && room !== undefined ? fitWidth(cell.text, room) : cell.text;
        const pad = last ? "" : " ".repeat(widths[i]! - Bun.stringWidth(text));
        return [(cell.style ? paint(options.colour, cell.style, text) : text) + pad];
      })
      .join(GAP),
  );
}
