/**
 * The failure view's pass over a transcript: every line of its text view, masked, through the
 * failure view (views/failure.ts), clears of the screen found in the same bytes. With the prefilter
 * (views/failure-scan.ts) the lines no failure rule can match are counted, not built: only the
 * lines around candidates, and each piece's first and last lines, go through the text view and the
 * masking. When the failure view says a skip may have changed its answer (a long run of repeated
 * lines just before a failure line or the end), the whole pass is made instead: the answer is always
 * the whole pass's.
 */
import type { DerunOutputChannel } from "../core/enums.ts";
import { ClearScan } from "../views/clear-screen.ts";
import { FailureLines, type FailurePicks } from "../views/failure.ts";
import { planFailurePiece } from "../views/failure-scan.ts";
import { TextView, type TextLine } from "../views/text.ts";
import { chunksOf, type ByteWindow, type RecordSpans } from "../views/window.ts";
import { assembledFor } from "./assembled-text.ts";
import { LineMasking, redactorFor, type MaskedLine } from "./masking.ts";
import { giveTurn } from "./pace.ts";
import { windowsThroughOneBuffer } from "./one-buffer.ts";
import type { Transcript } from "./transcript.ts";

/** Bytes given to the text view at once without the prefilter (and where a clear is looked for: its unit). */
const SLICE = 1 << 16;
/** Lines rendered before each candidate and before each piece's end, and after each candidate (the failure view keeps a tail of 40). */
const PLAN = { before: 64, after: 16 } as const;
const LF = 0x0a;

export interface FailurePassOptions {
  /** Skip the lines no rule can match (default true); false: the whole pass, every line built. */
  readonly prefilter?: boolean;
  /** Counts of what the pass did, for tests and the bench. */
  readonly stats?: FailurePassStats;
}

export interface FailurePassStats {
  /** Bytes given to the text view. */
  rendered: number;
  /** Lines counted without being built. */
  skipped: number;
  /** Passes made again whole, the prefilter's answer not sure. */
  redone: number;
}

/**
 * Every line of the transcript's text view, masked, through the failure view. `masked` gets, for
 * each line that had secrets and that the pass built, its number (as the failure view numbers it)
 * and how many: every line the picks hold was built.
 */
export async function pickFailureLines(
  t: Transcript,
  signal?: AbortSignal,
  masked?: Map<number, number>,
  options: FailurePassOptions = {},
): Promise<FailurePicks> {
  if (options.prefilter !== false) {
    const mine = new Map<number, number>();
    const picks = await pass(t, true, mine, options.stats, signal);
    // The end decides too: the result first, then whether it is sure.
    const result = picks.result();
    if (picks.sure || signal?.aborted) {
      for (const [line, n] of mine) masked?.set(line, n);
      return result;
    }
    if (options.stats) options.stats.redone++;
  }
  return (await pass(t, false, masked, options.stats, signal)).result();
}

/** A run of one channel's adjacent bytes in a window, and where the whole pass cuts it. */
interface Piece {
  readonly channel: DerunOutputChannel;
  readonly offset: number;
  readonly bytes: Uint8Array;
  /** Ends (in `bytes`) of the slices of SLICE bytes each record is cut into. */
  readonly slices: number[];
}

async function pass(
  t: Transcript,
  prefilter: boolean,
  masked: Map<number, number> | undefined,
  stats: FailurePassStats | undefined,
  signal: AbortSignal | undefined,
): Promise<FailureLines> {
  const view = new TextView({ maxLineChars: 4096 });
  const picks = new FailureLines();
  const clears = new ClearScan();
  // The lines leave the engine in the answer: masked before they are picked (masks keep lengths).
  const masking = new LineMasking(redactorFor(t.info.meta));
  let number = 0;
  const push = (line: TextLine & MaskedLine) => {
    number++;
    if (line.redacted) masked?.set(number, line.redacted);
    picks.push(line.text);
  };
  const render = (piece: Piece, from: number, to: number): (TextLine & MaskedLine)[] => {
    if (stats) stats.rendered += to - from;
    return masking.lines(view.write(piece.channel, piece.bytes.subarray(from, to), piece.offset + from));
  };
  /** A skip the failure view cannot take blind yet is rendered line by line until it can. */
  const skip = (piece: Piece, from: number, count: number) => {
    let left = count;
    while (left > 0 && (!picks.canSkip() || masking.inKey(piece.channel))) {
      const end = piece.bytes.indexOf(LF, from) + 1;
      for (const line of render(piece, from, end)) push(line);
      from = end;
      left--;
    }
    if (left === 0) return;
    picks.skip(left);
    number += left;
    if (stats) stats.skipped += left;
  };
  // Each window consumed before the next is read (no line keeps its bytes): one buffer for all.
  // What the terminal assembles from pieces on other rows is masked in the bytes first (./assembled-text.ts).
  const assembled = assembledFor(t, masking);
  for await (const read of windowsThroughOneBuffer(t, { signal })) {
    const window = await assembled.window(read, t.spans);
    for (const piece of piecesOf(window, t.spans)) {
      // Clears are looked for slice by slice, as the whole pass cuts the bytes: a clear is applied
      // after its slice's lines that ended before it, so the cut must be the same for the same answer.
      let start = 0;
      const found = piece.slices.map((end) => {
        const clear = clears.push(piece.bytes.subarray(start, end), piece.offset + start);
        start = end;
        return clear;
      });
      // Runs of slices without a clear go through the prefilter; a slice with one is viewed whole.
      let run = 0;
      piece.slices.forEach((end, k) => {
        const clear = found[k];
        if (prefilter && clear === undefined) {
          if (k + 1 < found.length && found[k + 1] === undefined) return; // the run goes on
          for (const step of planFailurePiece(piece.bytes.subarray(run, end), PLAN)) {
            if (step.skip !== undefined) skip(piece, run + step.from, step.skip);
            else for (const line of render(piece, run + step.from, run + step.to)) push(line);
          }
        } else {
          const lines = render(piece, run, end);
          let i = 0;
          if (clear !== undefined) {
            // Lines ended before the clear were on the screen it cleared.
            for (; i < lines.length && lines[i]!.end <= clear; i++) push(lines[i]!);
            picks.clear();
          }
          for (; i < lines.length; i++) push(lines[i]!);
        }
        run = end;
      });
      await giveTurn();
      if (signal?.aborted) return picks;
    }
  }
  for (const line of masking.lines(view.partials())) push(line);
  return picks;
}

/**
 * The window's records joined where they are one channel's adjacent bytes, each record cut into
 * slices of SLICE bytes from its start (the whole pass's unit).
 */
function* piecesOf(window: ByteWindow, spans: RecordSpans): Generator<Piece> {
  let run: { channel: DerunOutputChannel; from: number; to: number; slices: number[] } | undefined;
  const piece = (r: NonNullable<typeof run>): Piece => ({
    channel: r.channel,
    offset: r.from,
    bytes: window.bytes.subarray(r.from - window.offset, r.to - window.offset),
    slices: r.slices.map((end) => end - r.from),
  });
  for (const chunk of chunksOf(window, spans)) {
    const end = chunk.offset + chunk.bytes.length;
    if (!run || run.channel !== chunk.channel || run.to !== chunk.offset) {
      if (run) yield piece(run);
      run = { channel: chunk.channel, from: chunk.offset, to: chunk.offset, slices: [] };
    }
    for (let at = chunk.offset; at < end; at += SLICE) run.slices.push(Math.min(end, at + SLICE));
    run.to = end;
  }
  if (run) yield piece(run);
}
