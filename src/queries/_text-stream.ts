/**
 * The text view of a transcript streamed forward, window by window (never the whole range in
 * memory): what `derun cat --view text` prints and what search reads. Lines come in batches, one per
 * window (a yield per line would cost more than the view itself on a 1 GB transcript): complete
 * lines in order of their LF, then, last, the lines still open at the end of the range.
 */
import type { DerunOutputChannel } from "../core/enums.ts";
import { TextView, type TextLine } from "../views/text.ts";
import { chunksOf } from "../views/window.ts";
import { windowsForward, type Transcript } from "./_transcript.ts";

export interface TextStreamOptions {
  /** Only this channel's lines (numbered as that channel's view numbers them). */
  readonly channel?: DerunOutputChannel;
  readonly signal?: AbortSignal;
  /** Called after each window: a long-running caller bounds its memory there (JSC collects lazily). */
  readonly onWindow?: () => void;
}

/** Every line of the range's text view, in batches. */
export async function* textBatches(t: Transcript, options: TextStreamOptions = {}): AsyncGenerator<readonly TextLine[]> {
  const view = new TextView();
  for await (const window of windowsForward(t, t.lo, options.signal)) {
    const lines: TextLine[] = [];
    for (const chunk of chunksOf(window, t.spans, options.channel)) {
      for (const line of view.write(chunk.channel, chunk.bytes, chunk.offset)) lines.push(line);
    }
    if (lines.length > 0) yield lines;
    options.onWindow?.();
  }
  const open = view.partials();
  if (open.length > 0) yield open;
}
