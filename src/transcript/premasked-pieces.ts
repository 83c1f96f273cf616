/**
 * Pieces of a secret the raw masking masked on its own (a private key's body line), as the
 * assembled pass (./assembled.ts) meets them behind a row's cells: a new mask over such a piece is
 * kept when the row shows the piece whole, not when the piece was written over in part.
 */
import { MASK_BYTE } from "../secrets/masker.ts";

/** Which bytes drew a row's cells. */
export interface CellBytes {
  /** Cell i drawn from byte `from[base + i]` (a batch's looks share one array). */
  readonly from: Int32Array;
  readonly base: number;
  /** Undefined when every cell is drawn by one byte (`from` + 1). */
  readonly to?: Int32Array | undefined;
}

/** The indexes of the bytes that drew cells `[a, b)` of `look`. */
export function bytesOfCells(look: CellBytes, a: number, b: number): number[] {
  const { from, base, to } = look;
  const drawn: number[] = [];
  for (let cell = a; cell < b; cell++) {
    // Without `to`, the bytes are ASCII: each cell drawn by one byte.
    const end = to ? to[cell]! : from[base + cell]! + 1;
    for (let k = from[base + cell]!; k >= 0 && k < end; k++) drawn.push(k);
  }
  return drawn;
}

/**
 * Whether every run of bytes the raw masking masked (`masked` reads `*`, `bytes` do not) that `drawn`
 * touch lies wholly in `drawn`, or wholly in what the row shows (the bytes behind its `cells`
 * cells): a piece masked on its own and shown whole beside the rest of a token (the token the terminal
 * put together, even when the rule's match ends inside the piece: `ghp_` and 12 before a key's body
 * line with a `/` in it), not the rest of a secret written over in part (`\r` and a status over a
 * token), whose joining to the status is no secret the row shows. The work is bounded by `drawn` and
 * the row, never by a run's length: a run longer than either is in neither (a recorded program's
 * 600 KB masked line under 20,000 redraws of its row made each look walk it: minutes for one read).
 */
export function holdsWholePieces(
  runs: PremaskedRuns,
  look: CellBytes,
  cells: number,
  a: number,
  b: number,
  drawn: readonly number[],
): boolean {
  let checked: Set<number> | undefined;
  for (const k of drawn) {
    const run = runs.around(k);
    if (run === undefined) continue;
    const [start, end] = run;
    checked ??= new Set();
    if (checked.has(start)) continue;
    checked.add(start);
    if (!covers(look, a, b, start, end) && !covers(look, 0, cells, start, end)) return false;
  }
  return true;
}

/** Whether the bytes behind cells `[a, b)` of `look` include every byte of `[start, end)`. */
function covers(look: CellBytes, a: number, b: number, start: number, end: number): boolean {
  const { from, base, to } = look;
  const cellEnd = (cell: number) => (to ? to[cell]! : from[base + cell]! + 1);
  let inside = 0;
  for (let cell = a; cell < b; cell++) {
    const lo = Math.max(from[base + cell]!, start);
    const hi = Math.min(cellEnd(cell), end);
    if (hi > lo) inside += hi - lo;
  }
  if (inside < end - start) return false; // cannot hold the run (no array as long as the run is made)
  // A byte may draw more than one cell (a wide character): count each once.
  const seen = new Uint8Array(end - start);
  let covered = 0;
  for (let cell = a; cell < b; cell++) {
    const hi = Math.min(cellEnd(cell), end);
    for (let j = Math.max(from[base + cell]!, start); j < hi; j++) {
      if (seen[j - start] === 0) covered++;
      seen[j - start] = 1;
    }
  }
  return covered === end - start;
}

/**
 * The runs of bytes the raw masking masked on its own (`masked` reads `*` where `bytes` do not),
 * found in one pass over the window the first time a look touches one (most windows never do).
 */
export class PremaskedRuns {
  #starts: number[] | undefined;
  #ends: number[] = [];

  constructor(
    private readonly bytes: Uint8Array,
    private readonly masked: Uint8Array,
  ) {}

  /** The run `[start, end)` byte `k` is in, or undefined when the raw masking did not mask it. */
  around(k: number): readonly [number, number] | undefined {
    if (!(this.masked[k] === MASK_BYTE && this.bytes[k] !== MASK_BYTE)) return undefined;
    const starts = (this.#starts ??= this.#find());
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= k) lo = mid;
      else hi = mid - 1;
    }
    return [starts[lo]!, this.#ends[lo]!];
  }

  #find(): number[] {
    const { bytes, masked } = this;
    const starts: number[] = [];
    for (let k = 0; k < bytes.length; k++) {
      if (!(masked[k] === MASK_BYTE && bytes[k] !== MASK_BYTE)) continue;
      starts.push(k);
      while (k < bytes.length && masked[k] === MASK_BYTE && bytes[k] !== MASK_BYTE) k++;
      this.#ends.push(k);
    }
    return starts;
  }
}
