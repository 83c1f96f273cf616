/**
 * The agent views: text view throughput on each shape of log (against decoding and Bun.stripANSI,
 * which strips but does not collapse redraws), the text view and search streamed over a ~1 GB
 * transcript file, LF counting and the latency of the last 200 lines of it, screen render time of
 * the default window, and the size of each view against the raw bytes of real recordings.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { countLfs } from "../src/views/lines.ts";
import { DEFAULT_SCREEN_WINDOW, renderScreen } from "../src/views/screen.ts";
import { searchText, type SearchTextOptions } from "../test/helpers/search-text.ts";
import { TailScan } from "../src/views/tail-scan.ts";
import { TextView, type TextLine } from "../src/views/text.ts";
import { chunksOf, spanArray, type ByteWindow, type ChannelChunk, type ChannelSpan, type RecordSpans } from "../src/views/window.ts";
import type { BenchContext } from "./lib/context.ts";
import { writeFileOfBlocks } from "./lib/files.ts";
import type { Figure } from "./lib/report.ts";
import { summarize } from "./lib/stats.ts";
import { transcript, transcriptText, type TranscriptKind } from "./lib/transcripts.ts";
import { viewSizes } from "./views-size.ts";

const MiB = 1 << 20;
const BLOCK = MiB;
const NEEDLE = "2024-05-01T12:00:00.000Z ERROR db.pool connection refused: ECONNREFUSED 127.0.0.1:5432\r\n";

const mbps = (bytes: number, ms: number) => bytes / 1e6 / (ms / 1000);

/** Wall and CPU milliseconds of `f` (CPU time tells the code's speed when the machine is shared). */
function measure(f: () => unknown): { wall: number; cpu: number } {
  const cpu = process.cpuUsage();
  const started = performance.now();
  f();
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { wall, cpu: (used.user + used.system) / 1000 };
}
const time = (f: () => unknown): number => measure(f).wall;
const cpuNote = (bytes: number, cpu: readonly number[]) => `${mbps(bytes, summarize(cpu).median).toFixed(0)} MB/s of CPU time`;

function* chunksIn(bytes: Uint8Array, size = 64 * 1024): Generator<ChannelChunk> {
  for (let at = 0; at < bytes.length; at += size) yield { channel: "pty", offset: at, bytes: bytes.subarray(at, at + size) };
}

/** The file's bytes in `BLOCK`s, as chunks of one channel (the buffer is reused: consume each before the next). */
function* fileChunks(file: string): Generator<ChannelChunk> {
  const fd = fs.openSync(file, "r");
  const buffer = new Uint8Array(BLOCK);
  try {
    for (let offset = 0; ; ) {
      const n = fs.readSync(fd, buffer, 0, BLOCK, offset);
      if (n === 0) return;
      yield { channel: "pty", offset, bytes: buffer.subarray(0, n) };
      offset += n;
    }
  } finally {
    fs.closeSync(fd);
  }
}

function textOver(chunks: Iterable<ChannelChunk>): number {
  const view = new TextView();
  let chars = 0;
  for (const chunk of chunks) for (const line of view.write(chunk.channel, chunk.bytes, chunk.offset)) chars += line.text.length;
  return chars;
}

function stripOver(chunks: Iterable<ChannelChunk>): number {
  const decoder = new TextDecoder();
  let chars = 0;
  for (const chunk of chunks) chars += Bun.stripANSI(decoder.decode(chunk.bytes, { stream: true })).length;
  return chars;
}

/** Text view MB/s on each shape of log, in memory, against decode + Bun.stripANSI. */
function textByKind(ctx: BenchContext): Figure[] {
  const size = (ctx.quick ? 8 : 64) * MiB;
  const reps = ctx.quick ? 1 : 3;
  return (["plain", "build", "colour", "progress", "tui"] as const).map((kind) => {
    ctx.progress(`text view: ${kind} log, ${size / MiB} MiB x ${reps}`);
    const bytes = transcript(kind, size);
    const view: number[] = [];
    const cpu: number[] = [];
    const strip: number[] = [];
    textOver(chunksIn(bytes.subarray(0, 4 * MiB))); // warm the JIT
    for (let rep = 0; rep < reps; rep++) {
      const m = measure(() => textOver(chunksIn(bytes)));
      view.push(mbps(bytes.length, m.wall));
      cpu.push(m.cpu);
      strip.push(
        mbps(
          bytes.length,
          time(() => stripOver(chunksIn(bytes))),
        ),
      );
    }
    const s = summarize(view);
    return {
      name: `text view: ${kind} log`,
      unit: "MB/s",
      derun: s,
      anchor: { name: "decode + Bun.stripANSI", summary: summarize(strip) },
      target: ">= 200 MB/s",
      met: s.median >= 200,
      notes:
        `${size / MiB} MiB in 64 KiB chunks, ${reps} reps, ${cpuNote(bytes.length, cpu)}; the anchor strips escape codes but ` +
        `collapses no redraw`,
    };
  });
}

/** Writes the large mixed transcript, the needle line in its middle; returns its size. */
function writeLargeTranscript(file: string, size: number): number {
  const block = new TextEncoder().encode(transcriptText("mixed", 4 * MiB));
  const needle = new TextEncoder().encode(NEEDLE);
  let written = 0;
  let needleDone = false;
  return writeFileOfBlocks(file, size, (left) => {
    const next = !needleDone && written >= size / 2 ? ((needleDone = true), needle) : block.subarray(0, Math.min(left, block.length));
    written += next.length;
    return next;
  }).bytes;
}

/** The last `n` lines, read backward from the file in 64 KiB blocks; `spans` for a merged view. */
function tailOfFile(fd: number, size: number, n: number, spans?: RecordSpans): TextLine[] {
  const scan = new TailScan(n);
  const read = (from: number, to: number): ByteWindow => {
    const bytes = new Uint8Array(to - from);
    fs.readSync(fd, bytes, 0, bytes.length, from);
    return { offset: from, bytes };
  };
  let start;
  for (let end: number | undefined = size; end !== undefined && end > 0 && !start; end = scan.nextEnd(spans)) {
    start = scan.feed(read(Math.max(0, end - 64 * 1024), end), spans);
  }
  start ??= scan.finish();
  const window = read(start.from, size);
  const view = new TextView();
  const lines: TextLine[] = [];
  const chunks = spans ? chunksOf(window, spans) : [{ channel: "pty" as const, offset: window.offset, bytes: window.bytes }];
  for (const chunk of chunks)
    for (const line of view.write(chunk.channel, chunk.bytes, chunk.offset)) if (line.end > start.after) lines.push(line);
  return [...lines, ...view.partials()].slice(-n);
}

/** The large transcript: text view and search streamed from the file, LF count, tail latency. */
function largeTranscript(ctx: BenchContext): Figure[] {
  const file = path.join(ctx.dir, "views-large.log");
  const size = writeLargeTranscript(file, (ctx.quick ? 20 : 1024) * MiB);
  const mb = `${(size / MiB).toFixed(0)} MiB`;
  const figures: Figure[] = [];
  try {
    ctx.progress(`text view and search over a ${mb} transcript file`);
    const textRun = measure(() => textOver(fileChunks(file)));
    const text = mbps(size, textRun.wall);
    figures.push({
      name: `text view: ${mb} mixed transcript`,
      unit: "MB/s",
      derun: summarize([text]),
      target: ">= 200 MB/s",
      met: text >= 200,
      notes: `streamed from a file in 1 MiB blocks (page cache), one pass, ${cpuNote(size, [textRun.cpu])}`,
    });
    const searches: Array<[string, SearchTextOptions]> = [
      ["literal", { pattern: "ECONNREFUSED", literal: true }],
      ["regex, ignore case", { pattern: String.raw`connection refused: \w+`, ignoreCase: true }],
    ];
    for (const [what, options] of searches) {
      let found = 0;
      const run = measure(() => (found = searchText(fileChunks(file), { ...options, context: 2 }).matchCount));
      const rate = mbps(size, run.wall);
      if (found !== 1) throw new Error(`search ${what}: expected one match, found ${found}`);
      figures.push({
        name: `search (${what}): ${mb}`,
        unit: "MB/s",
        derun: summarize([rate]),
        target: ">= 100 MB/s",
        met: rate >= 100,
        notes: `text view + search with context 2, counting every match, from the file, ${cpuNote(size, [run.cpu])}`,
      });
    }
    const lfRate = mbps(
      size,
      time(() => {
        let n = 0;
        for (const chunk of fileChunks(file)) n += countLfs(chunk);
        return n;
      }),
    );
    figures.push({
      name: `count LFs (line numbers): ${mb}`,
      unit: "MB/s",
      derun: summarize([lfRate]),
      notes: "countLfs over the file in 1 MiB blocks",
    });
    const fd = fs.openSync(file, "r");
    try {
      const spans: ChannelSpan[] = [];
      for (let offset = 0; offset < size; offset += 4096)
        spans.push({ offset, length: Math.min(4096, size - offset), channel: spans.length % 2 ? "stderr" : "stdout" });
      for (const [what, recordsOf] of [
        ["one channel", undefined],
        ["merged stdout+stderr", spanArray(spans)],
      ] as const) {
        const samples: number[] = [];
        for (let rep = 0; rep < (ctx.quick ? 5 : 30); rep++) {
          let lines: TextLine[] = [];
          samples.push(time(() => (lines = tailOfFile(fd, size, 200, recordsOf))));
          if (lines.length !== 200) throw new Error(`tail (${what}): ${lines.length} lines, expected 200`);
        }
        const s = summarize(samples);
        figures.push({
          name: `last 200 lines (${what}): ${mb}`,
          unit: "ms",
          derun: s,
          target: "<= 100 ms",
          met: s.median <= 100,
          notes:
            `TailScan reading 64 KiB blocks back from the end, then the text view over the ` +
            `tail${recordsOf ? `; ${spans.length} index records` : ""}`,
        });
      }
    } finally {
      fs.closeSync(fd);
    }
  } finally {
    fs.rmSync(file, { force: true });
  }
  return figures;
}

/** Screen render time of the default window, per shape of log. */
async function screenRender(ctx: BenchContext): Promise<Figure[]> {
  const window = ctx.quick ? 2 * MiB : DEFAULT_SCREEN_WINDOW;
  const reps = ctx.quick ? 1 : 3;
  const figures: Figure[] = [];
  for (const kind of ["build", "colour", "progress", "tui", "mixed"] satisfies TranscriptKind[]) {
    ctx.progress(`screen render: ${kind}, ${window / MiB} MiB x ${reps}`);
    const bytes = transcript(kind, window).subarray(0, window);
    const samples: number[] = [];
    const cpu: number[] = [];
    for (let rep = 0; rep < reps; rep++) {
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      await renderScreen({ window: { offset: 0, bytes }, size: { cols: 120, rows: 30 } });
      samples.push(performance.now() - started);
      const used = process.cpuUsage(cpuBefore);
      cpu.push((used.user + used.system) / 1000);
    }
    const s = summarize(samples);
    figures.push({
      name: `screen render: ${kind}, ${window / MiB} MiB window`,
      unit: "ms",
      derun: s,
      target: "<= 500 ms",
      met: s.median <= 500,
      notes: `${mbps(window, s.median).toFixed(0)} MB/s (${cpuNote(window, cpu)}) at 120x30, scrollback 10,000 lines, ${reps} reps`,
    });
  }
  return figures;
}

export async function views(ctx: BenchContext): Promise<Figure[]> {
  return [...textByKind(ctx), ...largeTranscript(ctx), ...(await screenRender(ctx)), ...(await viewSizes(ctx))];
}
