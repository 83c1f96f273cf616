/**
 * The text view of a transcript streamed forward, window by window, each line masked (./masking.ts):
 * what `derun cat --view text` prints. See ./text-stream-raw.ts for how it is read.
 */
import type { TextLine } from "../views/text.ts";
import { assembledFor } from "./assembled-text.ts";
import { LineMasking, redactorFor } from "./masking.ts";
import { textBatchesAsRecorded, type TextStreamOptions } from "./text-stream-raw.ts";
import type { Transcript } from "./transcript.ts";

export type { TextStreamOptions } from "./text-stream-raw.ts";

/** Every line of the range's text view, in batches, secrets masked. */
export async function* textBatches(t: Transcript, options: TextStreamOptions = {}): AsyncGenerator<readonly TextLine[]> {
  const masking = new LineMasking(redactorFor(t.info.meta));
  // The bytes go through the assembled pass before the view draws them: pieces of a secret placed
  // on other rows read `*` (./assembled-text.ts).
  const assembled = options.masks ? undefined : assembledFor(t, masking);
  for await (const lines of textBatchesAsRecorded(t, { ...options, ...(assembled ? { assembled } : {}) })) yield masking.lines(lines);
}
