/**
 * The text view of a transcript streamed forward, window by window, each line masked (./masking.ts):
 * what `derun cat --view text` prints. See ./text-stream-raw.ts for how it is read.
 */
import type { TextLine } from "../views/text.ts";
import { LineMasking, redactorFor } from "./masking.ts";
import { textBatchesAsRecorded, type TextStreamOptions } from "./text-stream-raw.ts";
import type { Transcript } from "./transcript.ts";

export type { TextStreamOptions } from "./text-stream-raw.ts";

/** Every line of the range's text view, in batches, secrets masked. */
export async function* textBatches(t: Transcript, options: TextStreamOptions = {}): AsyncGenerator<readonly TextLine[]> {
  const masking = new LineMasking(redactorFor(t.info.meta));
  for await (const lines of textBatchesAsRecorded(t, options)) yield masking.lines(lines);
}
