/**
 * A transcript's windows read into one buffer, for a pass that consumes each window before the
 * next (search, the failure view): see {@link windowsThroughOneBuffer}.
 */
import type { OutputReader } from "../core/store.ts";
import { returnScanBuffer, scanBuffer } from "../views/simd-scan.ts";
import type { ByteWindow } from "../views/window.ts";
import { giveTurn } from "./pace.ts";
import type { TextStreamOptions } from "./text-stream.ts";
import { windowsForward, type Transcript } from "./transcript.ts";

/**
 * windowsForward's windows, read into one buffer through one open file when the store can (each
 * window is consumed before the next is read, and no line keeps its bytes): allocating a window per
 * read, or finding and checking the session's files again for each, costs more than the read
 * itself, and would hold search to a few hundred MB/s.
 */
export async function* windowsThroughOneBuffer(t: Transcript, options: TextStreamOptions): AsyncGenerator<ByteWindow> {
  const { store } = t;
  if (!store.openOutput) {
    yield* windowsForward(t, t.lo, { signal: options.signal, channel: options.channel });
    return;
  }
  using output = await store.openOutput(t.sessionId);
  // In the SIMD scanner's memory when it is free (views/simd-scan.ts).
  const buffer = scanBuffer(Math.max(1, Math.min(t.block, t.hi - t.lo)));
  try {
    yield* readAll(t, options, output, buffer);
  } finally {
    returnScanBuffer(buffer);
  }
}

async function* readAll(t: Transcript, options: TextStreamOptions, output: OutputReader, buffer: Uint8Array): AsyncGenerator<ByteWindow> {
  // A trimmed session's bytes begin where it kept them (trim.json): the rest is gone, not unread.
  for (let at = Math.max(t.lo, output.keptFrom); at < t.hi; ) {
    if (options.signal?.aborted) return;
    if (options.channel !== undefined) {
      // As windowsForward: stretches holding none of the channel's bytes are not read.
      const next = t.spans.firstOf(options.channel, t.spans.firstEndingAfter(at));
      if (next < 0) return;
      at = Math.max(at, t.spans.offset(next));
      if (at >= t.hi) return;
    }
    await giveTurn();
    const n = output.readInto(at, buffer.subarray(0, Math.min(buffer.length, t.hi - at)));
    if (n === 0) return;
    yield { offset: at, bytes: buffer.subarray(0, n) };
    at += n;
  }
}
