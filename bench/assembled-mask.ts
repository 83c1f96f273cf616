/**
 * What masking secrets the terminal assembles (src/transcript/assembled.ts, issue 38 class 2)
 * adds to a raw read: maskBetween over every 64 KiB window of a log, with 4 KiB of context on
 * either side as derun_read_output reads them, with the pass and without it (the raw masking
 * alone), interleaved rep by rep, the ratio taken within each rep. Four shapes of output: plain
 * lines from a pipe, a PTY's coloured CR LF lines, a progress line redrawn with `\r`, and a
 * spinner's tool that clears the line with `ESC[2K\r` before every line. Issue 38 allows reads
 * 20% slower than before. In-process: no binary involved.
 *
 * `bun bench/assembled-mask.ts [--quick]` runs it alone; `assembledMask` is a figure for bench/index.ts.
 */
import type { OutputSlice, SessionMeta } from "../src/core/store.ts";
import { maskBetween, redactorFor } from "../src/transcript/masking.ts";
import type { BenchContext } from "./lib/context.ts";
import { ratioFigure, type Figure } from "./lib/report.ts";
import { transcriptText } from "./lib/transcripts.ts";

const MB = 1_000_000;
const WINDOW = 64 * 1024;
const CONTEXT = 4096;
/** The store's slices: one a write, as a PTY read gives them. */
const SLICE = 4096;

export type AssembledKind = "plain" | "colour" | "progress" | "erase";

const KINDS: Record<AssembledKind, string> = {
  plain: "plain lines (pipe, LF)",
  colour: "coloured CR LF lines (PTY)",
  progress: "a progress line redrawn with \\r",
  erase: "ESC[2K\\r before every line",
};

/** A build tool with a spinner: every line, and every spinner frame, begins by clearing the row. */
function eraseLines(size: number): string {
  const parts: string[] = [];
  for (let i = 0, length = 0; length < size; i++) {
    const s =
      i % 4 === 3
        ? `\x1b[2K\r[${"=".repeat(i % 30).padEnd(30)}] ${i % 400}/400: crate_${i % 97}`
        : `\x1b[2K\r   Compiling crate_${i % 97} v0.${i % 13}.${i % 7} (/home/ann/src/crate_${i % 97})\n`;
    parts.push(s);
    length += s.length;
  }
  return parts.join("");
}

/** About `size` bytes of output of `kind`. */
export function assembledOutput(kind: AssembledKind, size: number): Uint8Array {
  const text = kind === "erase" ? eraseLines(size) : transcriptText(kind, size);
  return new TextEncoder().encode(text);
}

/** `bytes` as the store's slices of one buffer (consecutive views: joined without a copy). */
function slicesOf(bytes: Uint8Array): OutputSlice[] {
  const out: OutputSlice[] = [];
  for (let at = 0; at < bytes.length; at += SLICE) {
    const part = bytes.subarray(at, Math.min(bytes.length, at + SLICE));
    out.push({ channel: "pty", start: at, end: at + part.length, timestamp: "", bytes: part });
  }
  return out;
}

const redactor = redactorFor({ session_id: "bench", started_at: "2026-01-01T00:00:00Z", rows: 24 } as unknown as SessionMeta);

/** Milliseconds to mask every window of `slices`, with the assembled pass or without; and the masks counted. */
function maskAll(slices: readonly OutputSlice[], assembled: boolean): { ms: number; count: number } {
  const per = WINDOW / SLICE;
  const context = CONTEXT / SLICE;
  let count = 0;
  const started = performance.now();
  for (let i = 0; i < slices.length; i += per) {
    const before = slices.slice(Math.max(0, i - context), i);
    const window = slices.slice(i, i + per);
    const after = slices.slice(i + per, i + per + context);
    count += maskBetween(redactor, before, window, after, { assembled }).count;
  }
  return { ms: performance.now() - started, count };
}

export async function assembledMask(ctx: Pick<BenchContext, "quick" | "progress">): Promise<Figure[]> {
  const size = (ctx.quick ? 0.6 : 2.4) * MB;
  const reps = ctx.quick ? 3 : 12;
  ctx.progress(`assembled mask: ${size / MB} MB of each of 4 outputs x ${reps}, maskBetween with and without the assembled pass`);
  const kinds = Object.keys(KINDS) as AssembledKind[];
  const inputs = kinds.map((kind) => slicesOf(assembledOutput(kind, size)));
  const withPass = kinds.map((): number[] => []);
  const without = kinds.map((): number[] => []);
  // Rep -1 warms both sides up (JIT); then each rep runs both sides of each kind, in turn first.
  for (let rep = -1; rep < reps; rep++)
    for (let k = 0; k < kinds.length; k++) {
      const order = rep % 2 === 0 ? [true, false] : [false, true];
      for (const assembled of order) {
        const run = maskAll(inputs[k]!, assembled);
        if (rep >= 0) (assembled ? withPass : without)[k]!.push(run.ms);
      }
    }
  return kinds.map((kind, k) =>
    ratioFigure({
      name: `mask raw windows, ${KINDS[kind]}`,
      unit: "ms",
      derun: withPass[k]!,
      anchor: { name: "raw masking alone", samples: without[k]! },
      maxRatio: 1.2,
      notes: `${(size / MB).toFixed(1)} MB in windows of 64 KiB with 4 KiB either side; lower is faster`,
    }),
  );
}

if (import.meta.main) {
  const { renderTable } = await import("./lib/report.ts");
  const figures = await assembledMask({ quick: Bun.argv.includes("--quick"), progress: (m) => console.error(`bench: ${m}`) });
  console.log(renderTable(figures));
}
