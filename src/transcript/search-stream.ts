/**
 * The text view streamed for a search with a required literal: the lines that could hold it (or
 * that a control in them could make hold it) come as lines, the others as a count, found in the raw
 * bytes without building their view (views/literal-scan.ts says why no match is lost). Numbered as
 * textBatches numbers them: a count takes the place of that many lines.
 */
import { planPiece } from "../views/literal-scan.ts";
import { TextView, type TextLine } from "../views/text.ts";
import { chunksOf, type ChannelChunk } from "../views/window.ts";
import { giveTurn } from "./pace.ts";
import type { TextStreamOptions } from "./text-stream.ts";
import type { Transcript } from "./transcript.ts";
import { windowsThroughOneBuffer } from "./one-buffer.ts";

/** Bytes planned at once: consecutive records of a channel are taken together up to this much. */
const PIECE = 1 << 18;

/** A line of the view, or a number of lines passed over (none of them can match). */
export type CandidateStep = TextLine | number;

/** Every line of the range's text view that may hold `needle` (UTF-8), with `context` lines around it, and counts for the rest. */
export async function* candidateBatches(
  t: Transcript,
  needle: Uint8Array,
  context: number,
  options: TextStreamOptions = {},
): AsyncGenerator<readonly CandidateStep[]> {
  const view = new TextView();
  for await (const read of windowsThroughOneBuffer(t, options)) {
    // Masked bytes read as `*` (./mask-map.ts): a literal inside a secret is not there to be found.
    let window = options.masks ? { ...read, bytes: options.masks.apply(read.offset, read.bytes, false) } : read;
    // Without a mask map (derun grep), what the terminal assembles is masked in the bytes first (./assembled-text.ts).
    if (options.assembled) window = await options.assembled.window(window, t.spans);
    for (const piece of pieces(window.bytes, window.offset, chunksOf(window, t.spans, options.channel))) {
      const steps: CandidateStep[] = [];
      for (const step of planPiece(piece.bytes, needle, context)) {
        if (typeof step === "number") steps.push(step);
        else for (const line of view.write(piece.channel, piece.bytes.subarray(step[0], step[1]), piece.offset + step[0])) steps.push(line);
      }
      if (steps.length > 0) yield steps;
      await giveTurn();
      if (options.signal?.aborted) return;
    }
    options.onWindow?.();
  }
  const open = view.partials();
  if (open.length > 0) yield open;
}

/** Consecutive records of one channel joined (they are adjacent in the window), cut at PIECE bytes. */
function* pieces(bytes: Uint8Array, base: number, chunks: Iterable<ChannelChunk>): Generator<ChannelChunk> {
  let run: { channel: ChannelChunk["channel"]; from: number; to: number } | undefined;
  const flush = function* (): Generator<ChannelChunk> {
    if (!run) return;
    for (let at = run.from; at < run.to; at += PIECE) {
      const to = Math.min(run.to, at + PIECE);
      yield { channel: run.channel, offset: at, bytes: bytes.subarray(at - base, to - base) };
    }
    run = undefined;
  };
  for (const chunk of chunks) {
    if (run && run.channel === chunk.channel && run.to === chunk.offset) run.to += chunk.bytes.length;
    else {
      yield* flush();
      run = { channel: chunk.channel, from: chunk.offset, to: chunk.offset + chunk.bytes.length };
    }
  }
  yield* flush();
}
