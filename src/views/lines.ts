/**
 * Lines by number, without rendering what is not asked for. A line of the text view ends at an LF
 * byte, so counting LF bytes (a native search) numbers lines: line N of a channel ends at its
 * N-th LF, merged line N at the N-th LF of the output. Numbers are 1-based. The helpers here find
 * LFs in raw windows (of one channel, given the index records) and select head, tail or a range
 * from lines of either view; `tail-scan.ts` walks back from the end of a transcript for a tail.
 */
import type { DerunOutputChannel } from "../core/enums.ts";
import { DerunError } from "../core/errors.ts";
import { chunksOf, type ByteWindow, type RecordSpans } from "./window.ts";

const LF = 0x0a;

/** Which bytes count: all of them, or one channel's (then `spans`, the index records, say whose bytes are whose). */
export interface LineScope {
  readonly channel?: DerunOutputChannel;
  readonly spans?: RecordSpans;
}

/** Found `found` LFs; `at` is the offset of the wanted one when it was reached. */
export interface LfSearch {
  readonly found: number;
  readonly at?: number;
}

/** The window's bytes in scope, as pieces in file order. */
export function pieces(window: ByteWindow, scope: LineScope): Array<{ offset: number; bytes: Uint8Array }> {
  if (scope.channel === undefined) return [window];
  if (!scope.spans) throw new DerunError("internal", "lines: a channel needs the index records of the window");
  return [...chunksOf(window, scope.spans, scope.channel)];
}

/** LF bytes in the window (of `scope.channel` only, when given). */
export function countLfs(window: ByteWindow, scope: LineScope = {}): number {
  let n = 0;
  for (const { bytes } of pieces(window, scope)) {
    for (let p = bytes.indexOf(LF); p >= 0; p = bytes.indexOf(LF, p + 1)) n++;
  }
  return n;
}

/** Walking forward from offset `from` (default: the window's start), the `n`-th LF (n >= 1). */
export function nthLfForward(window: ByteWindow, n: number, from = window.offset, scope: LineScope = {}): LfSearch {
  let found = 0;
  for (const piece of pieces(window, scope)) {
    const { bytes, offset } = piece;
    if (offset + bytes.length <= from) continue;
    for (let p = bytes.indexOf(LF, Math.max(0, from - offset)); p >= 0; p = bytes.indexOf(LF, p + 1)) {
      if (++found === n) return { found, at: offset + p };
    }
  }
  return { found };
}

/** Walking backward from offset `before` (exclusive; default: the window's end), the `n`-th LF (n >= 1). */
export function nthLfBackward(
  window: ByteWindow,
  n: number,
  before = window.offset + window.bytes.length,
  scope: LineScope = {},
): LfSearch {
  let found = 0;
  const all = pieces(window, scope);
  for (let i = all.length - 1; i >= 0; i--) {
    const { bytes, offset } = all[i]!;
    if (offset >= before) continue;
    for (let p = lastLf(bytes, Math.min(bytes.length, before - offset) - 1); p >= 0; p = lastLf(bytes, p - 1)) {
      if (++found === n) return { found, at: offset + p };
    }
  }
  return { found };
}

const lastLf = (bytes: Uint8Array, from: number): number => (from < 0 ? -1 : bytes.lastIndexOf(LF, from));

/** Which lines to take: the first or last `n`, or `count` lines from line number `from` (1-based). */
export type LineRange = { readonly head: number } | { readonly tail: number } | { readonly from: number; readonly count: number };

export interface NumberedLine<T> {
  /** 1-based: the line ends at the `number`-th LF of its view. */
  readonly number: number;
  readonly line: T;
}

export interface LineSelection<T> {
  readonly lines: readonly NumberedLine<T>[];
  /** Lines in the range were left out to stay within `maxChars`. */
  readonly truncated: boolean;
}

export interface SelectOptions {
  /** Budget for the selected lines' text, one more character per line for its newline. At least one line is always kept. */
  readonly maxChars?: number;
}

type Text = string | { readonly text: string };
const charsOf = (line: Text): number => (typeof line === "string" ? line.length : line.text.length) + 1;

/**
 * Selects lines as they stream past, offered in increasing number. Keeps only what it may return:
 * a head stops growing once full, a tail is a ring of the last lines.
 */
export class LineSelector<T extends Text> {
  /** Kept lines are `kept[head..]`: a tail drops from the front by moving `head`, compacting now and then. */
  private kept: NumberedLine<T>[] = [];
  private head = 0;
  private chars = 0;
  private offered = 0;
  private full = false;
  private readonly maxChars: number;

  constructor(
    private readonly range: LineRange,
    options: SelectOptions = {},
  ) {
    this.maxChars = options.maxChars ?? Number.POSITIVE_INFINITY;
  }

  /** Offer line `number`; returns false once no later line can be selected (a tail always wants more). */
  push(number: number, line: T): boolean {
    this.offered++;
    const r = this.range;
    if ("tail" in r) {
      this.kept.push({ number, line });
      this.chars += charsOf(line);
      // Past the count, drop from the front; past the budget too, but never the last line.
      while (this.kept.length - this.head > r.tail || (this.chars > this.maxChars && this.kept.length - this.head > 1)) {
        this.chars -= charsOf(this.kept[this.head++]!.line);
      }
      if (this.head > 1024 && this.head * 2 > this.kept.length) {
        this.kept = this.kept.slice(this.head);
        this.head = 0;
      }
      return true;
    }
    const first = "head" in r ? 1 : r.from;
    const count = "head" in r ? r.head : r.count;
    if (number < first) return true;
    if (number >= first + count || this.full) return false;
    const size = charsOf(line);
    if (this.kept.length > 0 && this.chars + size > this.maxChars) {
      this.full = true;
      return false;
    }
    this.kept.push({ number, line });
    this.chars += size;
    return number < first + count - 1;
  }

  result(): LineSelection<T> {
    const lines = this.kept.slice(this.head);
    const r = this.range;
    // Fewer lines than the range holds, of those offered: the budget left some out.
    const truncated = "tail" in r ? lines.length < Math.min(r.tail, this.offered) : this.full;
    return { lines, truncated };
  }
}

/** Select from lines already in hand (numbered from `first`, default 1). */
export function selectLines<T extends Text>(
  lines: readonly T[],
  range: LineRange,
  options: SelectOptions & { first?: number } = {},
): LineSelection<T> {
  const selector = new LineSelector<T>(range, options);
  const first = options.first ?? 1;
  for (let i = 0; i < lines.length && selector.push(first + i, lines[i]!); i++);
  return selector.result();
}
