/** Output slices cut to a byte range: one read's slices shared by a window and the context around it. */
import type { OutputSlice } from "../core/store.ts";

/** `slices` cut to the bytes in `[lo, hi)` (a slice across an edge keeps its part, not copied). */
export function clipSlices(slices: readonly OutputSlice[], lo: number, hi: number): OutputSlice[] {
  const out: OutputSlice[] = [];
  for (const s of slices) {
    if (s.end <= lo || s.start >= hi) continue;
    if (s.start >= lo && s.end <= hi) out.push(s);
    else {
      const start = Math.max(lo, s.start);
      const end = Math.min(hi, s.end);
      out.push({ channel: s.channel, start, end, timestamp: s.timestamp, bytes: s.bytes.subarray(start - s.start, end - s.start) });
    }
  }
  return out;
}
