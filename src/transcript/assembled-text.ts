/**
 * The text view's bytes with the secrets the terminal assembles masked in them (issue 38, class 2).
 * The text view keeps one line and drops moves to other rows: a token whose second half is written
 * first at `ESC[row;colH` (or after `ESC 7`, `ESC[s`) and whose first half is put before it later
 * shows there as two pieces, each too short for a rule, and together they are the token. So every
 * text reader (`derun cat`, `grep`, `tail`, `why`, derun_read_text, derun_last_failure, the
 * prompts) renders bytes the assembled pass (./assembled.ts) went over first, with the bytes around
 * them, as a raw read does: the bytes that drew a masked cell read `*`, and the view shows stars
 * where the pieces were. Lengths stay, so every offset and line number stays.
 *
 * Only the assembled pass runs here, on the bytes as recorded: the rules a line's text is masked by
 * still run on each line (LineMasking), which counts them as before. The secrets masked here are
 * counted with the line that holds their first masked byte ({@link LineMasking.noteAssembled}).
 * Only windows that move to another row and back reach the grid (mayMoveRows): the text view puts
 * together what is drawn within a line itself (`\r`, backspaces, erases and moves along the line),
 * so a progress bar's or a spinner's windows cost one quick check and two small reads of the context.
 */
import type { DerunOutputChannel } from "../core/enums.ts";
import type { OutputSlice, Store } from "../core/store.ts";
import { GOES_BACK, MOVES_ROWS } from "../views/may-assemble.ts";
import { overwrittenScan } from "../views/overwritten-lines.ts";
import { chunksOf, type ByteWindow, type RecordSpans } from "../views/window.ts";
import { maskAssembled } from "./assembled.ts";
import { joined } from "./joined.ts";
import { CONTEXT, redactorFor, sliceWith, type LineMasking, type Redactor } from "./masking.ts";
import { redrawsAny } from "./moves-across-records.ts";
import type { Transcript } from "./transcript.ts";
import { overwrittenMasks } from "./written-over.ts";
import { FAR_CONTEXT } from "./far-context.ts";
import { type Piece, textContext } from "./text-far.ts";

/**
 * For each of `pieces` (consecutive, in file order) its bytes with the bytes behind every secret the
 * screen shows assembled turned into `*` (undefined when none of its bytes was), and the output.bin
 * offset of each such secret's first masked byte. `before` and `after`: up to CONTEXT bytes read around them.
 * `open`: `after` stops inside the line the pieces end in (the line goes on past LINE_AFTER): it may
 * be written over further on, out of sight, so it is masked as a line that is (written-over.ts).
 */
export function assembledBetween(
  redactor: Redactor,
  before: readonly Piece[],
  pieces: readonly Piece[],
  after: readonly Piece[],
  carried: ReadonlySet<number> = NONE,
  open = false,
): { bytes: Array<Uint8Array | undefined>; at: number[]; carry: Set<number> } {
  const out: Array<Uint8Array | undefined> = pieces.map(() => undefined);
  const at: number[] = [];
  const carry = new Set<number>();
  if (!redactor.enabled || pieces.length === 0) return { bytes: out, at, carry };
  // The quick checks on each part, before anything is joined: most output stops here.
  const context = [...before, ...pieces, ...after];
  // A CR that ends the context after the window, past an LF of its channel there, is on a line the
  // window does not show (the context is read on to a line's end): not taken for a lone one. Once
  // something goes back, the rest is left to the written-over lines' pass, which tells moves too.
  const openEnd = (c: DerunOutputChannel) => !after.some((p) => p.channel === c && p.bytes.indexOf(LF) >= 0);
  const flags = redrawsAny(context, MOVES_ROWS | GOES_BACK, openEnd, GOES_BACK);
  // Nothing is written over on a line that never goes back on it (a CR LF log, colours, a pipe's
  // lines), unless the line goes on out of sight (`open`).
  if (flags === 0 && !open && carried.size === 0) return { bytes: out, at, carry };
  // Where each piece is (a window of one-byte records has a million: no search for each).
  const index = new Map(pieces.map((p, i) => [p, i]));
  for (const channel of new Set(pieces.map((p) => p.channel))) {
    const pre = before.filter((p) => p.channel === channel);
    const mine = pieces.filter((p) => p.channel === channel);
    const all = [...pre, ...mine, ...after.filter((p) => p.channel === channel)];
    const bytes = joined(all.map((p) => p.bytes));
    const wStart = pre.reduce((n, p) => n + p.bytes.length, 0);
    const wEnd = wStart + mine.reduce((n, p) => n + p.bytes.length, 0);
    const fresh = all[0]!.start === 0;
    // The bytes as recorded are replayed (not after the raw masking, as a raw read does): the grid
    // sees the same tokens whatever the windows, and what the rules find on a line is left to the
    // line's masking, which counts it.
    // When the context is this channel's alone, its quick check was of these bytes: not made again.
    const scan =
      (flags & GOES_BACK) !== 0
        ? overwrittenScan(bytes, all.length === context.length)
        : { lines: [], erased: [], rows: (flags & MOVES_ROWS) !== 0 };
    const window = { start: wStart, end: wEnd };
    const grid = scan.rows ? maskAssembled(redactor, { bytes, masked: bytes, window, fresh }) : { bytes, at: [] };
    const options = { replayed: scan.rows, open, lines: scan.lines, erased: scan.erased };
    const masked = overwrittenMasks(redactor, bytes, grid, window, offsetsIn(all), carried, options);
    for (const k of masked.carry) carry.add(k);
    if (masked.bytes === bytes) continue;
    let from = wStart;
    for (const p of mine) {
      const to = from + p.bytes.length;
      out[index.get(p)!] = masked.bytes.slice(from, to);
      for (const k of masked.at) if (k >= from && k < to) at.push(p.start + k - from);
      from = to;
    }
  }
  return { bytes: out, at, carry };
}

const NONE: ReadonlySet<number> = new Set();

/** The bytes of `list` (consecutive) from `from` on: a piece across it keeps its part, not copied. */
function piecesFrom(list: readonly Piece[], from: number): Piece[] {
  const out: Piece[] = [];
  for (const p of list) {
    const cut = from - p.start;
    if (cut >= p.bytes.length) continue;
    out.push(cut > 0 ? { channel: p.channel, start: from, bytes: p.bytes.subarray(cut) } : p);
  }
  return out;
}

/** The output.bin offset of each index of `list`'s bytes joined (one channel's pieces, in file order). */
function offsetsIn(list: readonly Piece[]): (k: number) => number {
  return (k) => {
    for (const p of list) {
      if (k < p.bytes.length) return p.start + k;
      k -= p.bytes.length;
    }
    return -1;
  };
}

/** How far past a window the rest of its open line is read (a longer line is masked as it comes, in parts). */
const LINE_AFTER = 1024 * 1024;
/** Bytes read at once when the rest of a longer line is scanned for edits. */
const SCAN = 1024 * 1024;
const LF = 0x0a;
const CR = 0x0d;

/** The index of the last byte of `bytes` (a line's part, no LF in it) that may write over the line: a CR, a BS, an ESC. */
const lastEditIn = (bytes: Uint8Array): number => Math.max(bytes.lastIndexOf(CR), bytes.lastIndexOf(0x08), bytes.lastIndexOf(0x1b));

/**
 * The pass of a text reader of `t` that masks its lines with `masking`. Nothing past the range's
 * end is read: a command's view is of its own bytes and those before it (the shell's prompt after
 * it is no part of what it drew), as a session's is of what was committed when the read began.
 */
export const assembledFor = (t: Transcript, masking: LineMasking, redactor: Redactor = redactorFor(t.info.meta)): AssembledText =>
  new AssembledText(t.store, t.sessionId, redactor, masking, t.hi);

/**
 * One text reader's pass: the context around each window, and tells its LineMasking what it
 * masked. A reader reads forward, so the context before a window is the end of the one before it,
 * kept (a copy: a window may be read into a buffer used again); only the first is read from the
 * store, and the context after is read unless the window ends where the output did when opened.
 */
export class AssembledText {
  #kept: { end: number; pieces: Piece[] } | undefined;
  /** The secrets the last window masked that run past its end (./assembledBetween's `carry`). */
  #carry: ReadonlySet<number> = NONE;
  /** The rest of a line over LINE_AFTER, scanned once from `from` (see #writtenOverPast). */
  #line: { from: number; lf: number; lastEdit: number; more: boolean } | undefined;

  constructor(
    private readonly store: Store,
    private readonly sessionId: string,
    private readonly redactor: Redactor,
    private readonly masking: LineMasking,
    /** Where the reader's bytes end: nothing after it is read (undefined: a live follow reads what is there). */
    private readonly end?: number,
  ) {}

  /** A store read's slices (consecutive, in file order), masked. */
  async slices(slices: readonly OutputSlice[]): Promise<OutputSlice[]> {
    if (!this.redactor.enabled || slices.length === 0) return [...slices];
    const masked = await this.#mask(slices);
    return slices.map((s, i) => (masked[i] ? sliceWith(s, masked[i]) : s));
  }

  /** A window of output.bin (its records in `spans`), masked: the same window when nothing was. */
  async window(window: ByteWindow, spans: RecordSpans): Promise<ByteWindow> {
    if (!this.redactor.enabled || window.bytes.length === 0) return window;
    const pieces = [...chunksOf(window, spans)].map((c) => ({ channel: c.channel, start: c.offset, bytes: c.bytes }));
    if (pieces.length === 0) return window;
    const masked = await this.#mask(pieces);
    if (masked.every((b) => b === undefined)) return window;
    const bytes = Uint8Array.from(window.bytes);
    masked.forEach((b, i) => b && bytes.set(b, pieces[i]!.start - window.offset));
    return { offset: window.offset, bytes };
  }

  async #mask(pieces: readonly Piece[]): Promise<Array<Uint8Array | undefined>> {
    const lo = pieces[0]!.start;
    const last = pieces[pieces.length - 1]!;
    const hi = last.start + last.bytes.length;
    const [before, after] = await Promise.all([this.#before(lo), this.#after(hi)]);
    // What the window before masked and left unfinished goes on here, when it is the window before.
    const carried = this.#kept?.end === lo ? this.#carry : undefined;
    const open = after.cut !== undefined && (await this.#writtenOverPast(after.cut));
    // A piece at either edge whose rest lies farther than CONTEXT away: that side read on to FAR_CONTEXT (./text-far.ts).
    const read = { before, pieces, after: after.pieces, ...(this.#kept?.end === lo ? { kept: this.#kept.pieces } : {}), end: this.end };
    const context = await textContext(this.store, this.sessionId, this.redactor.rows, read);
    const masked = assembledBetween(this.redactor, context.before, pieces, context.after, carried, open);
    this.masking.noteAssembled(masked.at);
    this.#keep([...(this.#kept?.end === lo ? this.#kept.pieces : context.before), ...pieces], hi);
    this.#carry = masked.carry;
    return masked.bytes;
  }

  async #before(lo: number): Promise<readonly Piece[]> {
    const from = Math.max(0, lo - CONTEXT);
    if (this.#kept?.end === lo) return piecesFrom(this.#kept.pieces, from);
    if (from >= lo) return [];
    return (await this.store.read(this.sessionId, from, lo - from)).slices.filter((s) => s.end <= lo);
  }

  /**
   * CONTEXT bytes after `hi`, and on to the first LF: a line the window ends inside may be written
   * over further on (a long line, then `\r`), and only its whole is masked as the view will show it.
   * At most LINE_AFTER bytes (`cut`: where they stopped inside the line); not on past the reader's end.
   */
  async #after(hi: number): Promise<{ pieces: readonly Piece[]; cut?: number }> {
    if (this.end !== undefined && hi >= this.end) return { pieces: [] };
    const pieces: Piece[] = [];
    for (let at = hi; ; ) {
      if (at - hi >= LINE_AFTER) return { pieces, cut: at };
      const slices = (await this.store.read(this.sessionId, at, CONTEXT)).slices.filter((s) => s.start >= at);
      if (slices.length === 0) break;
      pieces.push(...slices);
      at = slices[slices.length - 1]!.end;
      if (slices.some((s) => s.bytes.includes(LF)) || (this.end !== undefined && at >= this.end)) break;
    }
    return { pieces };
  }

  /**
   * Whether the line the context after a window was cut in (at `at`, LINE_AFTER past the window)
   * may be written over further on: a CR not before LF, a BS or an ESC before its LF, or no LF
   * yet at a live tail. Then the window's part of it is masked as a written-over line's is, its
   * rest out of sight; a long line that cannot be (a minified JSON, a base64 blob) costs a native
   * scan of its rest, once a reader (the windows after it reuse it).
   */
  async #writtenOverPast(at: number): Promise<boolean> {
    const known = this.#line;
    if (known && known.from <= at && at < known.lf) return known.lastEdit >= at || known.more;
    let lastEdit = -1;
    let pos = at;
    for (;;) {
      if (this.end !== undefined && pos >= this.end) break;
      const slices = (await this.store.read(this.sessionId, pos, SCAN)).slices.filter((s) => s.start >= pos);
      if (slices.length === 0) break;
      for (const s of slices) {
        const lf = s.bytes.indexOf(LF);
        const edit = lastEditIn(lf < 0 ? s.bytes : s.bytes.subarray(0, lf));
        if (edit >= 0) lastEdit = s.start + edit;
        if (lf >= 0) {
          this.#line = { from: at, lf: s.start + lf, lastEdit, more: false };
          return lastEdit >= 0;
        }
      }
      pos = slices[slices.length - 1]!.end;
    }
    // No LF: at the reader's end the line is what it is; at a live tail more may come.
    const more = this.end === undefined;
    this.#line = { from: at, lf: pos, lastEdit, more };
    return lastEdit >= 0 || more;
  }

  /** The last FAR_CONTEXT bytes before `hi` of `list` (consecutive), copied: the next window's context before (./text-far.ts). */
  #keep(list: readonly Piece[], hi: number): void {
    const from = hi - FAR_CONTEXT;
    const pieces: Piece[] = [];
    for (const p of list) {
      const end = p.start + p.bytes.length;
      if (end <= from) continue;
      const cut = Math.max(0, from - p.start);
      pieces.push({ channel: p.channel, start: p.start + cut, bytes: p.bytes.slice(cut) });
    }
    this.#kept = { end: hi, pieces };
  }
}
