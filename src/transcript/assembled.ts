/**
 * Secrets the terminal assembles (issue 38, class 2), masked in raw bytes. A token written in
 * pieces that the screen puts together (the second half first, the first put before it after `\r`
 * or a cursor move; backspaces, readline's edits, `ESC[row;colH`) is in no piece long enough for a
 * rule, so masking the bytes (../secrets/mask-bytes.ts) misses it, and a replay of the raw read (a
 * terminal, an asciicast player) would draw it whole. Here the bytes are replayed onto a grid that
 * knows which bytes drew each cell (../views/drawn-by.ts), each row the edits touched is masked as
 * text, and every byte that drew a masked cell becomes `*`: the same length, so every offset holds.
 *
 * Bytes that cannot draw out of order (no CR but before LF, no BS, no cursor move or erase) skip
 * all of it after a few native scans: plain and coloured output cost next to nothing.
 */
import { drawnCells, mayAssemble } from "../views/drawn-by.ts";
import { lineRedrawLooks } from "../views/line-redraws.ts";
import { drawsInOrder } from "../views/rows-in-order.ts";
import { applyMask } from "../secrets/masker.ts";
import { bytesOfCells, type CellBytes, holdsWholePieces, PremaskedRuns } from "./premasked-pieces.ts";
import type { MaskRange, Redactor } from "../secrets/redactor.ts";

/** The size asciinema assumes when a session does not say. */
const DEFAULT_ROWS = 24;
const MASK_BYTE = 0x2a;
const MASK_CHAR = "*";

export interface AssembledInput {
  /** One channel's bytes as recorded (the window with the context read around it): what is replayed. */
  readonly bytes: Uint8Array;
  /** The same bytes after the raw masking: what the replay's masks are added to (never changed: a copy is returned). */
  readonly masked: Uint8Array;
  /** The window's part of `bytes`, `[start, end)`: only its newly masked secrets are counted. */
  readonly window: { readonly start: number; readonly end: number };
  /** `bytes` begin the session's output (a clear screen, the cursor at the top). */
  readonly fresh: boolean;
  /** Each look masked on its own, the grid replayed cell by cell: the reference the tests hold the fast way to. */
  readonly slow?: boolean;
}

export interface AssembledResult {
  readonly bytes: Uint8Array;
  readonly count: number;
  /**
   * For each secret counted, the index in `bytes` of its first newly masked byte in the window (the
   * text views count it with the line that holds it).
   */
  readonly at: readonly number[];
}

/**
 * `input.masked` with the bytes behind every secret the screen shows assembled turned into `*`
 * (a copy when any was; else `input.masked` itself), and how many such secrets had a newly masked
 * byte in the window.
 */
export function maskAssembled(redactor: Redactor, input: AssembledInput): AssembledResult {
  const { bytes, window } = input;
  if (!redactor.enabled || !mayAssemble(bytes)) return { bytes: input.masked, count: 0, at: [] };
  // Rows that stay their bytes in order (a line cleared before each redraw, redraws never shorter):
  // the grid would look at none of them. Checked on what it would replay.
  if (!input.slow && drawsInOrder(bytes)) return { bytes: input.masked, count: 0, at: [] };
  let out: Uint8Array | undefined;
  let count = 0;
  const at: number[] = [];
  const runs = new PremaskedRuns(bytes, input.masked);
  /** The bytes behind the cells a look's masking turned into `*`, in the order of the looks. */
  const apply = (look: Look, masked: { text: string; count: number }): void => {
    if (masked.count === 0) return;
    for (const [a, b] of newlyMasked(look.text, masked.text)) {
      const drawn = bytesOfCells(look, a, b);
      if (!holdsWholePieces(runs, look, look.text.length, a, b, drawn)) continue;
      let first = -1;
      for (const k of drawn) {
        out ??= Uint8Array.from(input.masked);
        if (out[k] === MASK_BYTE) continue;
        out[k] = MASK_BYTE;
        if (k >= window.start && k < window.end && (first < 0 || k < first)) first = k;
      }
      if (first < 0) continue;
      count++;
      at.push(first);
    }
  };
  // The replay is of the bytes as recorded, its masks then put on the bytes as the raw masking left
  // them: a piece a rule masks on its own (a private key's body line) is still letters on the row, so
  // `ghp_` and a piece drawn before it read as the token they are, not as `ghp_` and stars. A secret
  // the raw masking found already reads `*` there (never counted twice), and what overwrites one in
  // passing (`\r` and a status over a token) does not join it into a longer mask (holdsWholePieces).
  const options = { rows: redactor.rows ?? DEFAULT_ROWS, fresh: input.fresh, slow: input.slow === true };
  if (input.slow) drawnCells(bytes, options, (text, from, to) => apply({ text, from, base: 0, to }, redactor.text(text)));
  else {
    const batch = new LookBatch(redactor, apply);
    // A line redrawn in place (a progress bar's `\r ... ESC[K`): the grid's looks without the grid.
    const looks = lineRedrawLooks(bytes);
    if (looks) for (const look of looks) batch.keep(look.text, look.from);
    // An ASCII window's cells are each drawn by one byte: the look needs which one only (no `to`).
    else drawnCells(bytes, options, (text, from, to) => batch.add(text, from, to));
    batch.flush();
  }
  return { bytes: out ?? input.masked, count, at };
}

/** A row as the grid showed it: its text, and the bytes behind its cells. */
interface Look extends CellBytes {
  readonly text: string;
}

/** Cells a batch of looks holds at most before it is masked (a bound on the copies it keeps). */
const BATCH_CELLS = 1 << 16;

/**
 * Looks masked a batch at a time, in their order: the rules' keywords are looked for once in the
 * whole batch, then each look is masked looking only for those (as LineMasking.lines does). A
 * progress line redrawn thousands of times is as many looks, and finding which of some thirty
 * keywords each holds was most of their cost.
 */
class LookBatch {
  #looks: Look[] = [];
  #cells = 0;
  /** The looks' `from`, one after another: one array for all, reused batch after batch. */
  #from = new Int32Array(1024);

  constructor(
    private readonly redactor: Redactor,
    private readonly apply: (look: Look, masked: { text: string; count: number }) => void,
  ) {}

  /** A look whose cells' bytes are an array of its own (../views/line-redraws.ts): kept, not copied. */
  keep(text: string, from: Int32Array): void {
    this.#looks.push({ text, from, base: 0 });
    this.#cells += text.length;
    if (this.#cells >= BATCH_CELLS) this.flush();
  }

  /** A look at a row: its text and its cells' bytes (the row's own: copied, see CellLook). */
  add(text: string, from: Int32Array, to: Int32Array | undefined): void {
    const base = this.#cells;
    const n = text.length;
    if (base + n > this.#from.length) {
      const bigger = new Int32Array(Math.max(base + n, 2 * this.#from.length));
      bigger.set(this.#from.subarray(0, base));
      // The looks so far read the array they were added with: keep them on it.
      this.#looks = this.#looks.map((l) => ({ ...l, from: bigger }));
      this.#from = bigger;
    }
    const pool = this.#from;
    for (let i = 0; i < n; i++) pool[base + i] = from[i]!;
    this.#looks.push({ text, from: this.#from, base, to: to?.slice(0, n) });
    this.#cells += n;
    if (this.#cells >= BATCH_CELLS) this.flush();
  }

  flush(): void {
    const looks = this.#looks;
    if (looks.length === 0) return;
    [this.#looks, this.#cells] = [[], 0];
    const joined = looks.length > 4 ? looks.map((l) => l.text).join("\n") : undefined;
    const present = joined === undefined ? undefined : this.redactor.keywordsIn(joined);
    if (joined !== undefined && this.#together(looks, joined, present)) return;
    for (const look of looks) {
      const masked = this.redactor.text(look.text, undefined, present);
      if (masked.count > 0) this.apply(look, masked);
    }
  }

  /**
   * The looks masked in one pass over their texts joined by LF, as the raw masking finds a text's
   * secrets (a full-screen program shows hundreds of rows a window: one call, not one a row). Each
   * look is masked as a line of its own all the same, so the same secrets are found but where that
   * is not sure: a PEM key's BEGIN (its state runs on from look to look) or a secret found across
   * the LF after a look. Then false, nothing applied: the caller masks each.
   */
  #together(looks: readonly Look[], joined: string, present: ReadonlySet<string> | undefined): boolean {
    if (joined.includes("-----BEGIN")) return false;
    const ranges = this.redactor.rangesInLines(joined, present);
    if (ranges.length === 0) return true;
    const byLook: MaskRange[][] = [];
    let k = 0;
    let start = 0;
    for (const r of ranges) {
      while (k + 1 < looks.length && start + looks[k]!.text.length < r.start) start += looks[k++]!.text.length + 1;
      if (r.end > start + looks[k]!.text.length) return false;
      (byLook[k] ??= []).push({ start: r.start - start, end: r.end - start });
    }
    byLook.forEach((rs, i) => this.apply(looks[i]!, { text: applyMask(looks[i]!.text, rs), count: rs.length }));
    return true;
  }
}

/** The runs `[a, b)` of cells that masking turned into `*` (a mask keeps the text's length). */
function* newlyMasked(text: string, masked: string): Generator<[number, number]> {
  for (let i = 0; i < masked.length; ) {
    if (masked[i] !== MASK_CHAR || text[i] === MASK_CHAR) {
      i++;
      continue;
    }
    const a = i;
    while (i < masked.length && masked[i] === MASK_CHAR && text[i] !== MASK_CHAR) i++;
    yield [a, i];
  }
}
