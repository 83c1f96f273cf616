/**
 * How many secrets a line read through a mask map shows (./mask-map.ts). The map holds byte ranges,
 * and one secret coloured in the middle (`ghp_abc ESC[0m def`) or drawn in two pieces with a cursor
 * move between them is two ranges with escapes between: counted as one, as a line masked as text
 * counts it (the line's text shows the two as one run of `*`).
 */
import type { MaskMap } from "./mask-map.ts";
import type { Transcript } from "./transcript.ts";

/** Bytes that draw nothing: escape sequences (CSI, OSC, two-byte ESC) and nothing else. */
const DRAWS_NOTHING = /^(?:\x1b\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[\x20-\x2f]*[\x30-\x7e])+$/;

/** The secrets masked in output.bin's `[start, end)` (a line as the text view drew it). */
export async function secretsIn(t: Transcript, masks: MaskMap, start: number, end: number): Promise<number> {
  const ranges = masks.rangesIn(start, end);
  if (ranges.length < 2) return ranges.length;
  const read = await t.store.read(t.sessionId, start, end - start);
  const bytes = new Uint8Array(end - start);
  for (const slice of read.slices) bytes.set(slice.bytes, slice.start - start);
  let n = 1;
  for (let k = 1; k < ranges.length; k++) {
    const gap = bytes.subarray(Math.max(0, ranges[k - 1]![1] - start), Math.max(0, ranges[k]![0] - start));
    if (!DRAWS_NOTHING.test(Buffer.from(gap).toString("latin1"))) n++;
  }
  return n;
}
