/**
 * What the person's ignore rules (config.json's `record`) cost a recorded shell: the filter that
 * holds each typed command line until the shell announces it (src/recorder/command-filter.ts) runs
 * over every byte of the terminal's channel, beside the shell-mark parser the recorder runs anyway.
 * Measured in-process over the colourful build log of bench/shell-marks.ts (a command's marks every
 * 64 KB), in 16 KiB chunks as a PTY read gives them, against the mark parser alone; every byte the
 * filter passes is counted, and it must keep them all (no rule matches `make`).
 *
 * `bun bench/record-rules.ts [--quick]` runs it alone; `recordRules` is a figure for bench/index.ts.
 */
import { ShellCommandFilter } from "../src/recorder/command-filter.ts";
import { MarkParser } from "../src/shell/marks.ts";
import type { BenchContext } from "./lib/context.ts";
import type { Figure } from "./lib/report.ts";
import { summarize } from "./lib/stats.ts";
import { colourfulLog } from "./shell-marks.ts";

const MB = 1_000_000;
const CHUNK = 16 * 1024;

/** MB/s of `each` over `data` in CHUNK pieces, and the bytes it says it kept. */
function rate(data: Buffer, each: (chunk: Buffer) => number): { mbps: number; kept: number } {
  let kept = 0;
  const started = performance.now();
  for (let at = 0; at < data.length; at += CHUNK) kept += each(data.subarray(at, at + CHUNK));
  return { mbps: data.length / MB / ((performance.now() - started) / 1000), kept };
}

/** The filter with three rules, none of which matches the log's command (`make`). */
function filtered(data: Buffer): { mbps: number; kept: number } {
  const rules = [/^pass /, /vault read/, /^aws sts/];
  const filter = new ShellCommandFilter((line) => line !== null && rules.some((rule) => rule.test(line)), "/home/ann/project");
  const at = new Date();
  return rate(data, (chunk) => {
    let kept = 0;
    for (const piece of filter.split("pty", chunk, at)) if (piece.keep) kept += piece.bytes.length;
    return kept;
  });
}

export async function recordRules(ctx: Pick<BenchContext, "quick" | "progress">): Promise<Figure[]> {
  const size = (ctx.quick ? 8 : 128) * MB;
  const reps = ctx.quick ? 3 : 9;
  ctx.progress(`record rules: ${size / MB} MB x ${reps}, the ignore-rule filter beside the mark parser`);
  const { data } = colourfulLog(size);
  const withRules: number[] = [];
  const parserOnly: number[] = [];
  for (let rep = 0; rep < reps; rep++) {
    const run = filtered(data);
    if (run.kept !== data.length) throw new Error(`record rules: kept ${run.kept} of ${data.length} bytes, none is ignored`);
    withRules.push(run.mbps);
    const parser = new MarkParser();
    parserOnly.push(rate(data, (chunk) => (parser.push(chunk), chunk.length)).mbps);
  }
  const ratio = summarize(withRules.map((w, i) => w / parserOnly[i]!));
  return [
    {
      name: "ignore rules in a recorded shell (filter), colourful log",
      unit: "MB/s",
      derun: summarize(withRules),
      anchor: { name: "the shell-mark parser alone", summary: summarize(parserOnly) },
      ratio,
      target: "ratio >= 0.5",
      met: ratio.median >= 0.5,
      notes: `${(data.length / MB).toFixed(0)} MB in ${CHUNK / 1024} KiB chunks, 3 rules, every byte kept; higher is faster`,
    },
  ];
}

if (import.meta.main) {
  const { renderTable } = await import("./lib/report.ts");
  const figures = await recordRules({ quick: Bun.argv.includes("--quick"), progress: (m) => console.error(`bench: ${m}`) });
  console.log(renderTable(figures));
}
