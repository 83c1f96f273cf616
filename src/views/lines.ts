/**
 * Lines by number, without rendering what is not asked for. A line of the text view ends at an LF
 * byte, so counting LF bytes (natively, several GB/s) numbers lines: line N of a channel ends at its
 * N-th LF, merged line N at the N-th LF of the output. Numbers are 1-based. The helpers here find
 * LFs in raw windows (of one channel, given the index records), walk back from the end of a
 * transcript for a tail, and select head, tail or a range from lines of either view.
 */
import type { DerunOutputChannel } from "../core/enums.ts";
import { DerunError } from "../core/errors.ts";
import { chunksOf, type ByteWindow, type ChannelSpan } from "./window.ts";

const LF = 0x0a;

/** Which bytes count: all of them, or one channel's (then `spans`, the index records, say whose bytes are whose). */
export interface LineScope {
  readonly channel?: DerunOutputChannel;
  readonly spans?: readonly ChannelSpan[];
}

/** Found `found` LFs; `at` is the offset of the wanted one when it was reached. */
export interface LfSearch {
  readonly found: number;
  readonly at?: number;
}

/** The window's bytes in scope, as [offset, bytes] pieces in file order. */
function pieces(window: ByteWindow, scope: LineScope): Array<{ offset: number; bytes: Uint8Array }> {
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
export function nthLfBackward(window: ByteWindow, n: number, before = window.offset + window.bytes.length, scope: LineScope = {}): LfSearch {
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
  /** The highest line number offered: the view's line count when every line was offered. */
  readonly seen: number;
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
  private seen = 0;
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
    this.seen = Math.max(this.seen, number);
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
    return { lines, seen: this.seen, truncated };
  }
}

/** Select from lines already in hand (numbered from `first`, default 1). */
export function selectLines<T extends Text>(lines: readonly T[], range: LineRange, options: SelectOptions & { first?: number } = {}): LineSelection<T> {
  const selector = new LineSelector<T>(range, options);
  const first = options.first ?? 1;
  for (let i = 0; i < lines.length && selector.push(first + i, lines[i]!); i++);
  return selector.result();
}

/** Where to feed the text view from for a tail, and which of its lines are the tail. */
export interface TailStart {
  /** Feed the view from this offset (in scope: the channel's bytes, or all). */
  readonly from: number;
  /** The tail is the lines that end after this offset (complete lines and the partial ones). */
  readonly after: number;
  /** LF bytes in scope at or after `after`: the tail's first complete line is number `total - lfs + 1`. */
  readonly lfs: number;
}

/**
 * Finds where the last `lines` lines begin, fed windows of output.bin backward from its end (each
 * window ending where the previous one began), so a 1 GB transcript is read only as far back as
 * its tail reaches. A trailing partial line counts as a line. In a merged view of several channels
 * (no `channel`, `spans` given) the lines of other channels still open at the tail's first byte
 * began earlier: the scan goes on back to where they began, so `from` may precede `after` (given
 * all the index records rather than the window's, it knows at once which channels wrote nothing
 * before the tail). A channel that wrote nothing inside the tail is not looked for.
 */
export class TailScan {
  /** LFs to find: the count, plus one when the output ends with an LF (no partial line). */
  private want: number | undefined;
  private found = 0;
  private after: number | undefined;
  /** Channels with bytes in the tail: where their open line began once found, and their earliest byte seen. */
  private readonly open = new Map<DerunOutputChannel, { start?: number; earliest: number; checked?: boolean }>();
  private result: TailStart | undefined;

  constructor(
    private readonly lines: number,
    private readonly channel?: DerunOutputChannel,
  ) {}

  /** The next window backward (with the index records covering it); the answer once it is known. */
  feed(window: ByteWindow, spans?: readonly ChannelSpan[]): TailStart | undefined {
    if (this.result) return this.result;
    const scope: LineScope = { channel: this.channel, spans };
    const end = window.offset + window.bytes.length;
    if (this.want === undefined) {
      const last = lastByte(window, scope);
      if (last === undefined) return undefined; // nothing in scope here yet
      this.want = this.lines + (last === LF ? 1 : 0);
      if (this.lines === 0) this.after = end;
    }
    if (this.after === undefined) {
      const hit = nthLfBackward(window, this.want - this.found, end, scope);
      this.found += hit.found;
      if (hit.at !== undefined) this.after = hit.at + 1;
    }
    const merged = spans !== undefined && this.channel === undefined;
    if (merged) this.trackOpenLines(window, spans, this.after ?? window.offset);
    if (this.after === undefined || (merged && [...this.open.values()].some((o) => o.start === undefined))) return undefined;
    return this.finish();
  }

  /** The start of the output was reached (or the caller stops reading): the answer with what was found. */
  finish(): TailStart {
    if (this.result) return this.result;
    const after = this.after ?? 0;
    let from = after;
    for (const o of this.open.values()) from = Math.min(from, o.start ?? o.earliest);
    const lfs = this.after === undefined ? this.found : Math.max(0, this.found - 1);
    this.result = { from, after, lfs };
    return this.result;
  }

  /** Notes channels with bytes at or after `tailFrom`, and looks for each one's last LF before the tail. */
  private trackOpenLines(window: ByteWindow, spans: readonly ChannelSpan[], tailFrom: number): void {
    for (const chunk of chunksOf(window, spans)) {
      const o = this.open.get(chunk.channel);
      if (o) o.earliest = Math.min(o.earliest, chunk.offset);
      else if (chunk.offset + chunk.bytes.length > tailFrom) this.open.set(chunk.channel, { earliest: Math.max(chunk.offset, tailFrom) });
    }
    if (this.after === undefined) return;
    const after = this.after;
    const before = Math.min(window.offset + window.bytes.length, after);
    // Records from the output's start show which channels wrote nothing before the tail: their line opens in it.
    const complete = spans[0]?.offset === 0;
    for (const [channel, o] of this.open) {
      if (o.start !== undefined) continue;
      if (complete && !o.checked) {
        o.checked = true;
        if (!spans.some((span) => span.channel === channel && span.offset < after)) {
          o.start = after;
          continue;
        }
      }
      const hit = nthLfBackward(window, 1, before, { channel, spans });
      if (hit.at !== undefined) o.start = hit.at + 1;
    }
  }
}

/** The last byte in scope in the window, if any. */
function lastByte(window: ByteWindow, scope: LineScope): number | undefined {
  const all = pieces(window, scope);
  const piece = all[all.length - 1];
  return piece && piece.bytes.length > 0 ? piece.bytes[piece.bytes.length - 1] : undefined;
}
