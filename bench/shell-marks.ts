/**
 * Shell-mark parsing speed: MarkParser over a colourful build log (SGR colours, hyperlinks, titles
 * and a command's marks every 64 KB) and over plain text, in 16 KiB chunks (a PTY read), against
 * the floor: Buffer.indexOf of every `ESC ]` (a single search for a chunk without one, which is all
 * such a chunk may cost). The parser must find every mark written. In-process: no binary involved.
 *
 * `bun bench/shell-marks.ts [--quick]` runs it alone; `shellMarks` is a figure for bench/index.ts.
 */
import { MarkParser } from "../src/shell/marks.ts";
import type { BenchContext } from "./lib/context.ts";
import type { Figure } from "./lib/report.ts";
import { summarize } from "./lib/stats.ts";

const MB = 1_000_000;
const CHUNK = 16 * 1024;

export function colourfulLog(size: number): { data: Buffer; marks: number } {
  const lines = [
    "\x1b[32m✓\x1b[0m src/core/store/read.test.ts \x1b[2m> reads from a cursor\x1b[0m \x1b[90m(3.21ms)\x1b[0m\r\n",
    "\x1b[1;34mINFO\x1b[0m  compiled \x1b[36m214\x1b[0m modules in \x1b[33m812 ms\x1b[0m\r\n",
    "\x1b[31m✗\x1b[0m \x1b]8;;file:///src/x.ts\x1b\\src/x.ts:12:4\x1b]8;;\x1b\\ expected \x1b[32m1\x1b[0m got \x1b[31m2\x1b[0m\r\n",
    "\x1b]0;make -j8\x07progress \x1b[7m42%\x1b[0m\r",
  ];
  const command =
    "\x1b]133;D;0\x07\x1b]633;P;Cwd=/home/ann/project\x07\x1b]133;A\x07$ \x1b]133;B\x07make\r\n\x1b]633;E;make\x07\x1b]133;C\x07";
  let text = "";
  let marks = 0;
  for (let i = 0; text.length < size; i++) {
    if (i % 600 === 0) (text += command), (marks += 6);
    text += lines[i % lines.length];
  }
  return { data: Buffer.from(text), marks };
}

function plainText(size: number): Buffer {
  const line = "2025-01-01T00:00:00Z worker-3 processed batch 1234 of 5678 in 12 ms, 0 errors, queue depth 17\n";
  return Buffer.from(line.repeat(Math.ceil(size / line.length)));
}

/** MB/s of `parse` over `data` in CHUNK pieces. */
function rate(data: Buffer, parse: (chunk: Buffer) => number): { mbps: number; found: number } {
  let found = 0;
  const started = performance.now();
  for (let at = 0; at < data.length; at += CHUNK) found += parse(data.subarray(at, at + CHUNK));
  return { mbps: data.length / MB / ((performance.now() - started) / 1000), found };
}

const OSC = Buffer.from("\x1b]");

/** The least any parser does: find every `ESC ]` (one search for a chunk with none). */
function everyOscIntro(chunk: Buffer): number {
  let found = 0;
  for (let at = chunk.indexOf(OSC); at >= 0; at = chunk.indexOf(OSC, at + 2)) found += 1;
  return found;
}

function figure(name: string, data: Buffer, reps: number, marks: number): Figure {
  const parsed: number[] = [];
  const floor: number[] = [];
  for (let rep = 0; rep < reps; rep++) {
    const parser = new MarkParser();
    const run = rate(data, (chunk) => parser.push(chunk).length);
    if (run.found !== marks) throw new Error(`${name}: found ${run.found} marks, wrote ${marks}`);
    parsed.push(run.mbps);
    floor.push(rate(data, everyOscIntro).mbps);
  }
  const ratio = summarize(parsed.map((p, i) => p / floor[i]!));
  return {
    name,
    unit: "MB/s",
    derun: summarize(parsed),
    anchor: { name: "Buffer.indexOf of every ESC ]", summary: summarize(floor) },
    ratio,
    target: "ratio >= 0.5",
    met: ratio.median >= 0.5,
    notes: `${(data.length / MB).toFixed(0)} MB in ${CHUNK / 1024} KiB chunks, ${marks} marks; higher is faster`,
  };
}

export async function shellMarks(ctx: Pick<BenchContext, "quick" | "progress">): Promise<Figure[]> {
  const size = (ctx.quick ? 8 : 128) * MB;
  const reps = ctx.quick ? 3 : 9;
  ctx.progress(`shell marks: ${size / MB} MB x ${reps}, colourful and plain`);
  const log = colourfulLog(size);
  return [
    figure("shell-marks parse, colourful log", log.data, reps, log.marks),
    figure("shell-marks parse, plain text", plainText(size), reps, 0),
  ];
}

if (import.meta.main) {
  const { renderTable } = await import("./lib/report.ts");
  const figures = await shellMarks({ quick: Bun.argv.includes("--quick"), progress: (m) => console.error(`bench: ${m}`) });
  console.log(renderTable(figures));
}
