/**
 * Lines of a transcript's text view by number, reading only what they need: a tail walks back from
 * the end (TailScan), a head or a range counts LF bytes forward to its first line and runs the view
 * from there. Line N ends at the N-th LF of the range (of `channel`'s bytes when given), so numbers
 * are those of the whole view; the lines still open at the end come last.
 */
import type { DerunOutputChannel } from "../core/enums.ts";
import { LineSelector, nthLfBackward, nthLfForward, type LineRange, type NumberedLine } from "../views/lines.ts";
import { TailScan } from "../views/tail-scan.ts";
import { TextView, type TextLine } from "../views/text.ts";
import { chunksOf } from "../views/window.ts";
import { textLineTotal } from "./line-count.ts";
import { readWindow, windowsForward, type Transcript } from "./transcript.ts";
import { assembledFor } from "./assembled-text.ts";
import { keyOpenAt, mayBeKeyBody } from "./key-block.ts";
import { LineMasking, redactedIn, redactorFor } from "./masking.ts";

export interface TextSelection {
  readonly lines: readonly NumberedLine<TextLine>[];
  /** Lines of the view in the range. */
  readonly total: number;
  /** The budget left out lines of the range asked for. */
  readonly truncated: boolean;
  /** Secrets masked in the lines (each line counts its own: see MaskedLine). */
  readonly redacted: number;
}

export interface TextSelectOptions {
  readonly channel?: DerunOutputChannel;
  readonly maxChars: number;
  readonly signal?: AbortSignal;
}

/** The lines of `range` in the transcript's text view, within `maxChars`. */
export async function selectText(t: Transcript, range: LineRange, options: TextSelectOptions): Promise<TextSelection> {
  const { lfs, total } = await textLineTotal(t, options.channel, options.signal);
  // Every line costs the budget a character at least: a longer tail would be read only to be dropped.
  const capped: LineRange = "tail" in range ? { tail: Math.min(range.tail, options.maxChars) } : range;
  const selector = new LineSelector<TextLine>(capped, { maxChars: options.maxChars });
  const masking = new LineMasking(redactorFor(t.info.meta));
  if ("tail" in capped) {
    // TailScan's `from` is already where the earliest line still open at the tail began, on any channel.
    const start = await tailStart(t, capped.tail, options.channel, options.signal);
    await runView(t, start.from, new Map(), lfs - start.lfs + 1, selector, start.after, options, masking);
  } else {
    // Lines past the last LF are the open ones: start after the last LF and let the selector skip to them.
    const first = "head" in capped ? 1 : capped.from;
    const skip = Math.min(first - 1, lfs);
    const at = skip === 0 ? t.lo : await afterNthLf(t, skip, options.channel, options.signal);
    if (at !== undefined) {
      const starts = await lineStartsAt(t, at, options.channel, options.signal);
      await runView(t, Math.min(at, ...starts.values()), starts, skip + 1, selector, at, options, masking);
    }
  }
  const selected = selector.result();
  // A tail (or a range) that begins inside a private key's block has no BEGIN line before it to
  // say so: its body's short last line would look like any word (./key-block.ts).
  const first = selected.lines[0]?.line;
  const open = first && first.start > t.lo && masking.enabled && mayBeKeyBody(first.text) ? await keyOpenAt(t, first.start) : undefined;
  if (open !== undefined) masking.startInKey(open);
  // The lines kept, masked as one batch (a line cut to the budget was masked before its cut).
  const masked = masking.lines(selected.lines.map((l) => l.line));
  const lines = selected.lines.map((l, i) => (masked[i] === l.line ? l : { ...l, line: masked[i]! }));
  // Lines past the cap were asked for and exist: the budget left them out.
  const cut = "tail" in range && "tail" in capped && capped.tail < range.tail && total > capped.tail;
  return { lines, total, truncated: selected.truncated || cut, redacted: redactedIn(lines.map((l) => l.line)) };
}

/**
 * Runs the view from `from` (each channel from its own start in `starts`) to the range's end and
 * offers the selector the lines that end after `after`, numbered from `first`; the open lines last.
 */
async function runView(
  t: Transcript,
  from: number,
  starts: ReadonlyMap<DerunOutputChannel, number>,
  first: number,
  selector: LineSelector<TextLine>,
  after: number,
  options: TextSelectOptions,
  masking: LineMasking,
): Promise<void> {
  const view = new TextView();
  // What the terminal assembles from pieces on other rows is masked in the bytes first (./assembled-text.ts).
  const assembled = assembledFor(t, masking);
  let number = first;
  // A line longer than the whole budget is cut to it (the view already cuts at 1 MiB), masked first
  // (a secret the cut went through would no longer be recognised); the others are masked once kept.
  const clipped = (line: TextLine) => {
    if (line.text.length <= options.maxChars) return line;
    const masked = masking.line(line);
    return { ...masked, text: masked.text.slice(0, options.maxChars), cut: true, masked: true };
  };
  const offer = (line: TextLine) => (!line.partial && line.end <= after) || selector.push(number++, clipped(line));
  for await (const read of windowsForward(t, from, { signal: options.signal, channel: options.channel })) {
    const window = await assembled.window(read, t.spans);
    for (const chunk of chunksOf(window, t.spans, options.channel)) {
      const start = starts.get(chunk.channel) ?? from;
      if (chunk.offset + chunk.bytes.length <= start) continue;
      const bytes = chunk.offset < start ? chunk.bytes.subarray(start - chunk.offset) : chunk.bytes;
      for (const line of view.write(chunk.channel, bytes, Math.max(start, chunk.offset))) if (!offer(line)) return;
    }
  }
  for (const line of view.partials()) if (!offer(line)) return;
}

/** Where the tail of `lines` lines begins: TailScan fed backward windows and every record of the range. */
async function tailStart(t: Transcript, lines: number, channel?: DerunOutputChannel, signal?: AbortSignal) {
  const scan = new TailScan(lines, channel, t.lo);
  // One channel: nothing after its last record is in scope (and without a record it has no lines).
  const last = channel === undefined ? -1 : t.spans.lastOf(channel, t.hi);
  let end: number | undefined = channel === undefined ? t.hi : last < 0 ? undefined : Math.min(t.hi, t.spans.end(last));
  let result;
  while (end !== undefined && end > t.lo && !result && !signal?.aborted) {
    const window = await readWindow(t, Math.max(t.lo, end - t.block), end);
    result = scan.feed(window, t.spans);
    end = scan.nextEnd(t.spans);
  }
  return result ?? scan.finish();
}

/** Just past the `n`-th LF of the range (of `channel`), or undefined when it has fewer. */
async function afterNthLf(t: Transcript, n: number, channel?: DerunOutputChannel, signal?: AbortSignal): Promise<number | undefined> {
  let left = n;
  for await (const window of windowsForward(t, t.lo, { signal, channel })) {
    const hit = nthLfForward(window, left, window.offset, channel === undefined ? {} : { channel, spans: t.spans });
    if (hit.at !== undefined) return hit.at + 1;
    left -= hit.found;
  }
  return undefined;
}

/**
 * Where each channel's line open at offset `at` began: just past its last LF before `at`, or its
 * first byte in the range. Only a merged view of several channels needs this; one channel's line
 * open at a point just past its LF begins there. Reads windows of `t.block` bytes back from the
 * channel's last record before each point, skipping stretches without its bytes.
 */
async function lineStartsAt(
  t: Transcript,
  at: number,
  channel?: DerunOutputChannel,
  signal?: AbortSignal,
): Promise<Map<DerunOutputChannel, number>> {
  const starts = new Map<DerunOutputChannel, number>();
  if (channel !== undefined || t.channels.length <= 1) return starts;
  for (const c of t.channels) {
    for (let end = at; ; ) {
      const i = t.spans.lastOf(c, end);
      if (i < 0) {
        // None of its bytes before `end`: its line began at its first byte.
        const first = t.spans.firstOf(c);
        starts.set(c, Math.max(t.lo, Math.min(at, first < 0 ? at : t.spans.offset(first))));
        break;
      }
      end = Math.min(end, t.spans.end(i));
      const window = await readWindow(t, Math.max(t.lo, end - t.block), end);
      const hit = nthLfBackward(window, 1, end, { channel: c, spans: t.spans });
      if (hit.at !== undefined) {
        starts.set(c, hit.at + 1);
        break;
      }
      if (window.offset <= t.lo || signal?.aborted) {
        starts.set(c, t.lo);
        break;
      }
      end = window.offset;
    }
  }
  return starts;
}
