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
import { mayMoveRows } from "../views/may-assemble.ts";
import { chunksOf, type ByteWindow, type RecordSpans } from "../views/window.ts";
import { maskAssembled } from "./assembled.ts";
import { joined } from "./joined.ts";
import { CONTEXT, redactorFor, sliceWith, type LineMasking, type Redactor } from "./masking.ts";
import type { Transcript } from "./transcript.ts";

/** Bytes of one channel at `start` of output.bin: a store's slice, or a piece of a window. */
export interface Piece {
  readonly channel: DerunOutputChannel;
  readonly start: number;
  readonly bytes: Uint8Array;
}

/**
 * For each of `pieces` (consecutive, in file order) its bytes with the bytes behind every secret the
 * screen shows assembled turned into `*` (undefined when none of its bytes was), and the output.bin
 * offset of each such secret's first masked byte. `before` and `after`: up to CONTEXT bytes read around them.
 */
export function assembledBetween(
  redactor: Redactor,
  before: readonly Piece[],
  pieces: readonly Piece[],
  after: readonly Piece[],
): { bytes: Array<Uint8Array | undefined>; at: number[] } {
  const out: Array<Uint8Array | undefined> = pieces.map(() => undefined);
  const at: number[] = [];
  if (!redactor.enabled || pieces.length === 0) return { bytes: out, at };
  // The quick check on each part, before anything is joined: most output stops here.
  if (!mayMoveRowsAny([...before, ...pieces, ...after])) return { bytes: out, at };
  for (const channel of new Set(pieces.map((p) => p.channel))) {
    const pre = before.filter((p) => p.channel === channel);
    const mine = pieces.filter((p) => p.channel === channel);
    const all = [...pre, ...mine, ...after.filter((p) => p.channel === channel)];
    const bytes = joined(all.map((p) => p.bytes));
    const wStart = pre.reduce((n, p) => n + p.bytes.length, 0);
    const wEnd = wStart + mine.reduce((n, p) => n + p.bytes.length, 0);
    const fresh = all[0]!.start === 0;
    // The bytes as recorded are replayed (not after the raw masking, as a raw read does): what the
    // rules find on a line is left to the line's masking, which counts it.
    const masked = maskAssembled(redactor, { bytes, masked: bytes, window: { start: wStart, end: wEnd }, fresh });
    if (masked.bytes === bytes) continue;
    let from = wStart;
    for (const p of mine) {
      const to = from + p.bytes.length;
      out[pieces.indexOf(p)] = masked.bytes.slice(from, to);
      for (const k of masked.at) if (k >= from && k < to) at.push(p.start + k - from);
      from = to;
    }
  }
  return { bytes: out, at };
}

/**
 * Whether any of `list` (consecutive records) may move to another row and back (mayMoveRows): what
 * is drawn within a line the text view puts together itself. Each record is checked on its own
 * (joining them would cost a copy of every window), so a record that ends inside an escape
 * sequence (`ESC[5;` then `10H` in the next write) is checked with the start of its channel's next
 * record.
 */
function mayMoveRowsAny(list: readonly Piece[]): boolean {
  for (let i = 0; i < list.length; i++) {
    const { bytes } = list[i]!;
    // Plain output (no ESC, no C1 CSI) costs two native searches and nothing else.
    const plain = bytes.indexOf(ESC) < 0 && bytes[bytes.length - 1] !== 0xc2;
    if (plain && bytes.indexOf(0x9b) < 0) continue;
    const open = plain ? -1 : openFrom(bytes);
    if (open >= 0 && acrossCut(bytes.subarray(open), list, i)) return true;
    if (mayMoveRows(bytes)) return true;
  }
  return false;
}

/** Bytes of the next record a sequence cut at a record's end is looked for in (a longer one is taken for a move). */
const ACROSS = 64;

/** Whether the sequence `tail` that ends `list[i]` may move or edit, finished in its channel's next record. */
function acrossCut(tail: Uint8Array, list: readonly Piece[], i: number): boolean {
  let k = i + 1;
  while (k < list.length && list[k]!.channel !== list[i]!.channel) k++;
  // Its end is past the bytes the grid replays: nothing it does is drawn there.
  if (k >= list.length) return false;
  const head = list[k]!.bytes.subarray(0, ACROSS);
  const joined = new Uint8Array(tail.length + head.length);
  joined.set(tail);
  joined.set(head, tail.length);
  // Only the sequence itself: the rest of the next record is checked as that record.
  const end = sequenceEnd(joined, 0);
  return end < 0 || mayMoveRows(joined.subarray(0, end));
}

/**
 * Where the escape sequence (or the C1 CSI, C2 9B) that `bytes` end inside begins, or -1 when they
 * end outside any.
 */
function openFrom(bytes: Uint8Array): number {
  const n = bytes.length;
  if (n === 0) return -1;
  if (bytes[n - 1] === 0xc2) return n - 1;
  const esc = bytes.lastIndexOf(ESC);
  return esc >= 0 && sequenceEnd(bytes, esc) < 0 ? esc : -1;
}

/** Just past the end of the sequence that begins at `at` (ESC, or C2 9B), or -1 when `bytes` end first. */
function sequenceEnd(bytes: Uint8Array, at: number): number {
  const n = bytes.length;
  let j = at + 1;
  if (bytes[at] === 0xc2 || bytes[j] === 0x5b) {
    j++;
    while (j < n && bytes[j]! >= 0x20 && bytes[j]! <= 0x3f) j++;
  } else while (j < n && bytes[j]! >= 0x20 && bytes[j]! <= 0x2f) j++;
  return j < n ? j + 1 : -1;
}

const ESC = 0x1b;

/** The pass of a text reader of `t` that masks its lines with `masking`. */
export const assembledFor = (t: Transcript, masking: LineMasking, redactor: Redactor = redactorFor(t.info.meta)): AssembledText =>
  new AssembledText(t.store, t.sessionId, redactor, masking);

/** One text reader's pass: reads the context around each window from the store, and tells its LineMasking what it masked. */
export class AssembledText {
  constructor(
    private readonly store: Store,
    private readonly sessionId: string,
    private readonly redactor: Redactor,
    private readonly masking: LineMasking,
  ) {}

  /** A store read's slices (consecutive, in file order), masked. */
  async slices(slices: readonly OutputSlice[]): Promise<OutputSlice[]> {
    if (!this.redactor.enabled || slices.length === 0) return [...slices];
    const lo = slices[0]!.start;
    const hi = slices[slices.length - 1]!.end;
    const { before, after } = await this.#context(lo, hi);
    const masked = assembledBetween(this.redactor, before, slices, after);
    this.masking.noteAssembled(masked.at);
    return slices.map((s, i) => (masked.bytes[i] ? sliceWith(s, masked.bytes[i]) : s));
  }

  /** A window of output.bin (its records in `spans`), masked: the same window when nothing was. */
  async window(window: ByteWindow, spans: RecordSpans): Promise<ByteWindow> {
    if (!this.redactor.enabled || window.bytes.length === 0) return window;
    const pieces = [...chunksOf(window, spans)].map((c) => ({ channel: c.channel, start: c.offset, bytes: c.bytes }));
    const { before, after } = await this.#context(window.offset, window.offset + window.bytes.length);
    const masked = assembledBetween(this.redactor, before, pieces, after);
    if (masked.bytes.every((b) => b === undefined)) return window;
    this.masking.noteAssembled(masked.at);
    const bytes = Uint8Array.from(window.bytes);
    masked.bytes.forEach((b, i) => b && bytes.set(b, pieces[i]!.start - window.offset));
    return { offset: window.offset, bytes };
  }

  async #context(lo: number, hi: number): Promise<{ before: OutputSlice[]; after: OutputSlice[] }> {
    const from = Math.max(0, lo - CONTEXT);
    const [pre, post] = await Promise.all([
      from < lo ? this.store.read(this.sessionId, from, lo - from) : undefined,
      this.store.read(this.sessionId, hi, CONTEXT),
    ]);
    return { before: pre?.slices.filter((s) => s.end <= lo) ?? [], after: post.slices.filter((s) => s.start >= hi) };
  }
}
