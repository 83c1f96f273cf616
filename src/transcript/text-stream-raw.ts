/**
 * The text view of a transcript streamed forward, window by window (never the whole range in
 * memory): what `derun cat --view text` prints and what search reads. Lines come in batches, one per
 * piece of a window (a yield per line would cost more than the view itself on a 1 GB transcript):
 * complete lines in order of their LF, then, last, the lines still open at the end of the range.
 * The event loop gets its turns between pieces (see _pace.ts); a cancelled read ends early, without
 * the open lines.
 */
import type { DerunOutputChannel } from "../core/enums.ts";
import { TextView, type TextLine } from "../views/text.ts";
import { chunksOf } from "../views/window.ts";
import { giveTurn } from "./pace.ts";
import type { AssembledText } from "./assembled-text.ts";
import type { MaskMap } from "./mask-map.ts";
import { windowsForward, type Transcript } from "./transcript.ts";

/** Bytes given to the view at once: a few ms of work between two chances to give the event loop a turn. */
const PIECE = 1 << 16;

export interface TextStreamOptions {
  /** Only this channel's lines (numbered as that channel's view numbers them). */
  readonly channel?: DerunOutputChannel;
  readonly signal?: AbortSignal;
  /** Called after each window: a long-running caller bounds its memory there (JSC collects lazily). */
  readonly onWindow?: () => void;
  /** Where the session's masks fall: those bytes are read as `*` (search, in `derun mcp`: ./mask-map.ts). */
  readonly masks?: MaskMap;
  /** The pass that masks what the terminal assembles, run on each window before the view (./assembled-text.ts). */
  readonly assembled?: AssembledText;
}

/**
 * Every line of the range's text view, in batches, as recorded: secrets NOT masked. Only for the
 * engine's search, which masks what it answers (see search.ts); readers get {@link textBatches}
 * (./text-stream.ts). Not exported from the engine's entry.
 */
export async function* textBatchesAsRecorded(t: Transcript, options: TextStreamOptions = {}): AsyncGenerator<readonly TextLine[]> {
  const view = new TextView();
  for await (const read of windowsForward(t, t.lo, { signal: options.signal, channel: options.channel })) {
    let window = options.masks ? { ...read, bytes: options.masks.apply(read.offset, read.bytes, false) } : read;
    if (options.assembled) window = await options.assembled.window(window, t.spans);
    for (const chunk of chunksOf(window, t.spans, options.channel)) {
      // In pieces, so the event loop gets its turns within a large record too.
      for (let at = 0; at < chunk.bytes.length; at += PIECE) {
        const lines = view.write(chunk.channel, chunk.bytes.subarray(at, at + PIECE), chunk.offset + at);
        if (lines.length > 0) yield lines;
        await giveTurn();
        if (options.signal?.aborted) return;
      }
    }
    options.onWindow?.();
  }
  const open = view.partials();
  if (open.length > 0) yield open;
}
