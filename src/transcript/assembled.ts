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
import type { Redactor } from "../secrets/redactor.ts";

/** The size asciinema assumes when a session does not say. */
const DEFAULT_ROWS = 24;
const MASK_BYTE = 0x2a;
const MASK_CHAR = "*";

export interface AssembledInput {
  /** One channel's bytes as recorded (the window with the context read around it). */
  readonly bytes: Uint8Array;
  /** The same bytes after the raw masking: what is replayed, and added to (never changed: a copy is returned). */
  readonly masked: Uint8Array;
  /** The window's part of `bytes`, `[start, end)`: only its newly masked secrets are counted. */
  readonly window: { readonly start: number; readonly end: number };
  /** `bytes` begin the session's output (a clear screen, the cursor at the top). */
  readonly fresh: boolean;
  /** Each look masked on its own, the grid replayed cell by cell: the reference the tests hold the fast way to. */
  readonly slow?: boolean;
}

/**
 * `input.masked` with the bytes behind every secret the screen shows assembled turned into `*`
 * (a copy when any was; else `input.masked` itself), and how many such secrets had a newly masked
 * byte in the window.
 */
export function maskAssembled(redactor: Redactor, input: AssembledInput): { bytes: Uint8Array; count: number } {
  const { bytes, window } = input;
  if (!redactor.enabled || !mayAssemble(bytes)) return { bytes: input.masked, count: 0 };
  let out: Uint8Array | undefined;
  let count = 0;
  /** The bytes behind the cells a look's masking turned into `*`, in the order of the looks. */
  const apply = (look: Look, masked: { text: string; count: number }): void => {
    if (masked.count === 0) return;
    const { text, from, to } = look;
    for (const [a, b] of newlyMasked(text, masked.text)) {
      let inWindow = false;
      for (let cell = a; cell < b; cell++) {
        for (let k = from[cell]!; k >= 0 && k < to[cell]!; k++) {
          out ??= Uint8Array.from(input.masked);
          if (out[k] === MASK_BYTE) continue;
          out[k] = MASK_BYTE;
          if (k >= window.start && k < window.end) inWindow = true;
        }
      }
      if (inWindow) count++;
    }
  };
  // The replay is of the bytes as the raw masking left them: what a replay of the raw read would
  // draw. A secret found there already reads `*` (never counted twice), and what overwrites one in
  // passing (`\r` and a status over a token) does not join it into a longer mask.
  const options = { rows: redactor.rows ?? DEFAULT_ROWS, fresh: input.fresh, slow: input.slow === true };
  if (input.slow) drawnCells(input.masked, options, (text, from, to) => apply({ text, from, to }, redactor.text(text)));
  else {
    const batch = new LookBatch(redactor, apply);
    drawnCells(input.masked, options, (text, from, to) => batch.add(text, from, to));
    batch.flush();
  }
  return { bytes: out ?? input.masked, count };
}

interface Look {
  readonly text: string;
  readonly from: Int32Array;
  readonly to: Int32Array;
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
  /**
   * The batch's cells' bytes, copied here (the grid reuses its rows): one buffer for every batch,
   * not a copy per look, which were most of the garbage a 1 MiB read of binary output made.
   */
  #from = new Int32Array(BATCH_CELLS * 2);
  #to = new Int32Array(BATCH_CELLS * 2);

  constructor(
    private readonly redactor: Redactor,
    private readonly apply: (look: Look, masked: { text: string; count: number }) => void,
  ) {}

  add(text: string, from: Int32Array, to: Int32Array): void {
    const at = this.#cells;
    const n = from.length;
    if (at + n > this.#from.length) this.#grow(at + n);
    this.#from.set(from, at);
    this.#to.set(to, at);
    this.#looks.push({ text, from: this.#from.subarray(at, at + n), to: this.#to.subarray(at, at + n) });
    this.#cells += n;
    if (this.#cells >= BATCH_CELLS) this.flush();
  }

  /** Room for `n` cells; the looks held move to the new buffers. */
  #grow(n: number): void {
    const size = Math.max(n, this.#from.length * 2);
    const [from, to] = [new Int32Array(size), new Int32Array(size)];
    from.set(this.#from.subarray(0, this.#cells));
    to.set(this.#to.subarray(0, this.#cells));
    let at = 0;
    this.#looks = this.#looks.map((look) => {
      const end = at + look.from.length;
      const moved = { text: look.text, from: from.subarray(at, end), to: to.subarray(at, end) };
      at = end;
      return moved;
    });
    [this.#from, this.#to] = [from, to];
  }

  flush(): void {
    const looks = this.#looks;
    if (looks.length === 0) return;
    // The looks are masked before the next add: their cells' buffer is written over only after.
    [this.#looks, this.#cells] = [[], 0];
    const present = looks.length > 4 ? this.redactor.keywordsIn(looks.map((l) => l.text).join("\n")) : undefined;
    for (const look of looks) this.apply(look, this.redactor.text(look.text, undefined, present));
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
