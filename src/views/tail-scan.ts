/**
 * The tail of a view without reading the rest: windows of output.bin are fed backward from its end
 * and the scan says where to start the text view so that its last lines come out whole, with how
 * many LFs lie in the tail (so the lines keep the numbers they have in the whole view).
 */
import type { DerunOutputChannel } from "../core/enums.ts";
import { nthLfBackward, pieces, type LineScope } from "./lines.ts";
import { channelsOf, chunksOf, type ByteWindow, type RecordSpans } from "./window.ts";

const LF = 0x0a;

/** Where to feed the text view from for a tail, and which of its lines are the tail. */
export interface TailStart {
  /** Feed the view from this offset (in scope: the channel's bytes, or all). */
  readonly from: number;
  /** The tail is the lines that end after this offset (complete lines and the partial ones). */
  readonly after: number;
  /** LF bytes in scope at or after `after`: the tail's first complete line is number `total - lfs + 1`. */
  readonly lfs: number;
}

/** A channel of a merged view: its last byte, and where its line open at the tail began. */
interface OpenLine {
  lastByte?: number;
  /** Just past its last byte. */
  lastEnd: number;
  earliest: number;
  start?: number;
}

/**
 * Finds where the last `lines` lines begin. For one channel (or a session with one), the lines
 * ending after `after` are the tail and at most one line more (a trailing partial line may show
 * nothing and be no line: take the last `lines`). In a merged
 * view of several channels (no `channel`, `spans` given) a line of one channel may have begun long
 * before the tail, and each channel's partial line sits at the end of the view: the scan finds
 * where each of those began, and `after` may leave a line or two more than asked (take the last
 * `lines`). Give it all the index records there: it then knows every channel at once, and
 * {@link nextEnd} skips stretches that hold none of the bytes it still needs (given only each
 * window's records, a channel's line that ended before the scanned stretch is missed).
 */
export class TailScan {
  /** LFs to find before `after`. */
  private want: number | undefined;
  private found = 0;
  private after: number | undefined;
  /** Everything from `low` to the end has been fed. */
  private low = Number.POSITIVE_INFINITY;
  private readonly open = new Map<DerunOutputChannel, OpenLine>();
  private result: TailStart | undefined;

  /** `start`: where the transcript begins (a command's range starts past 0). */
  constructor(
    private readonly lines: number,
    private readonly channel?: DerunOutputChannel,
    private readonly start = 0,
  ) {}

  /** The next window: it ends where the previous began, or at {@link nextEnd}; the answer once known. */
  feed(window: ByteWindow, spans?: RecordSpans): TailStart | undefined {
    if (this.result) return this.result;
    const end = window.offset + window.bytes.length;
    const merged = spans !== undefined && this.channel === undefined;
    const contiguous = end >= this.low || this.low === Number.POSITIVE_INFINITY;
    if (this.after === undefined && contiguous) this.countBack(window, { channel: this.channel, spans });
    this.low = Math.min(this.low, window.offset);
    if (merged) this.trackOpenLines(window, spans);
    if (this.after === undefined || (merged && this.pending().length > 0)) return undefined;
    return this.finish();
  }

  /**
   * Where the next window should end: where the last one began; for one channel given the index
   * records, the end of its last record before that (the stretch between holds none of its
   * bytes); for a merged view given them, the end of the last record of a channel whose line
   * start is still unknown. Undefined when nothing more is needed (or the start was reached).
   */
  nextEnd(spans?: RecordSpans): number | undefined {
    if (this.result || this.low <= this.start) return undefined;
    if (spans !== undefined && this.channel !== undefined && this.after === undefined) {
      const i = spans.lastOf(this.channel, this.low);
      // Nothing of the channel before `low`: as good as fed.
      this.low = i < 0 ? this.start : Math.min(this.low, spans.end(i));
      return this.low > this.start ? this.low : undefined;
    }
    if (this.after === undefined || spans === undefined || this.channel !== undefined) return this.low;
    let next: number | undefined;
    for (const channel of this.pending()) {
      const i = spans.lastOf(channel, this.low);
      if (i >= 0) next = Math.max(next ?? this.start, Math.min(this.low, spans.end(i)));
    }
    return next;
  }

  /** The start of the output was reached (or the caller stops reading): the answer with what was found. */
  finish(): TailStart {
    if (this.result) return this.result;
    const after = this.after ?? this.start;
    let from = after;
    for (const line of this.open.values()) if (this.needed(line, after)) from = Math.min(from, line.start ?? line.earliest);
    this.result = { from, after, lfs: this.after === undefined ? this.found : Math.max(0, this.found - 1) };
    return this.result;
  }

  /** Counts LFs back from the window's end until `after` is known. */
  private countBack(window: ByteWindow, scope: LineScope): void {
    const end = window.offset + window.bytes.length;
    if (this.want === undefined) {
      const all = pieces(window, scope);
      const last = all[all.length - 1];
      if (!last || last.bytes.length === 0) return; // nothing in scope here yet
      // One more LF bounds the tail: a trailing partial line may be no line (nothing drawn in it),
      // and in a merged view the partial lines of all channels come last, found below.
      this.want = this.lines + 1;
      if (this.lines === 0) this.after = end;
    }
    if (this.after !== undefined) return;
    const hit = nthLfBackward(window, this.want - this.found, end, scope);
    this.found += hit.found;
    if (hit.at !== undefined) this.after = hit.at + 1;
  }

  /** Notes each channel's last byte as it first appears, and looks for the starts still unknown. */
  private trackOpenLines(window: ByteWindow, spans: RecordSpans): void {
    const chunks = [...chunksOf(window, spans)];
    for (let i = chunks.length - 1; i >= 0; i--) {
      const chunk = chunks[i]!;
      const line = this.open.get(chunk.channel);
      const lastEnd = chunk.offset + chunk.bytes.length;
      if (!line) this.open.set(chunk.channel, { lastByte: chunk.bytes[chunk.bytes.length - 1], lastEnd, earliest: chunk.offset });
      else {
        if (line.lastByte === undefined) {
          line.lastByte = chunk.bytes[chunk.bytes.length - 1];
          line.lastEnd = lastEnd;
        }
        line.earliest = Math.min(line.earliest, chunk.offset);
      }
    }
    // All the records from the transcript's start: every channel is known, and which wrote nothing before the tail.
    const complete = spans.count > 0 && spans.offset(0) <= this.start;
    if (complete)
      for (const channel of channelsOf(spans))
        if (!this.open.has(channel)) this.open.set(channel, { lastEnd: this.start, earliest: Number.POSITIVE_INFINITY });
    if (this.after === undefined) return;
    const after = this.after;
    for (const [channel, line] of this.open) {
      if (line.start !== undefined || line.lastByte === undefined || !this.needed(line, after)) continue;
      if (complete && spans.lastOf(channel, after) < 0) {
        line.start = after;
        continue;
      }
      const hit = nthLfBackward(window, 1, Math.min(window.offset + window.bytes.length, after), { channel, spans });
      if (hit.at !== undefined) line.start = hit.at + 1;
    }
  }

  /** A channel's open line belongs to the tail: it wrote inside the tail, or its last line has no LF. */
  private needed(line: OpenLine, after: number): boolean {
    return line.lastByte !== undefined && (line.lastEnd > after || line.lastByte !== LF);
  }

  /** Channels of a merged view whose last byte or line start is still unknown. */
  private pending(): DerunOutputChannel[] {
    const after = this.after ?? this.start;
    const out: DerunOutputChannel[] = [];
    for (const [channel, line] of this.open) {
      if (line.lastByte === undefined || (line.start === undefined && this.needed(line, after))) out.push(channel);
    }
    return out;
  }
}
