/**
 * Recordings for the view tests, made at test time by running real programs: on a real PTY (the
 * channel `pty`, with the window size and every resize at the byte count it happened at) or with
 * stdout and stderr on pipes (channels `stdout`/`stderr`, interleaved as they arrived). The shape
 * is what the store would hold: output.bin's bytes and index records.
 */
import type { DerunOutputChannel } from "../../src/core/enums.ts";
import type { ResizeEvent, TermSize } from "../../src/views/screen.ts";
import { spanArray, type ByteWindow, type ChannelChunk, type ChannelSpan, type RecordSpans } from "../../src/views/window.ts";
import { spawnInPty, type PtyRun } from "./pty.ts";

export interface Recording {
  readonly size: TermSize;
  readonly resizes: readonly ResizeEvent[];
  readonly chunks: readonly ChannelChunk[];
  /** output.bin */
  readonly bytes: Uint8Array;
  /** index.jsonl */
  /** The index records, and the same as the views take them. */
  readonly records: readonly ChannelSpan[];
  readonly spans: RecordSpans;
  readonly window: ByteWindow;
}

/** A recording of `parts` written in this order (each one an index record). */
export function recording(
  parts: ReadonlyArray<{ channel: DerunOutputChannel; bytes: Uint8Array }>,
  size: TermSize = { cols: 80, rows: 24 },
  resizes: readonly ResizeEvent[] = [],
): Recording {
  const total = parts.reduce((n, p) => n + p.bytes.length, 0);
  const bytes = new Uint8Array(total);
  const chunks: ChannelChunk[] = [];
  let offset = 0;
  for (const part of parts) {
    if (part.bytes.length === 0) continue;
    bytes.set(part.bytes, offset);
    chunks.push({ channel: part.channel, offset, bytes: bytes.subarray(offset, offset + part.bytes.length) });
    offset += part.bytes.length;
  }
  const records = chunks.map((c) => ({ offset: c.offset, length: c.bytes.length, channel: c.channel }));
  return { size, resizes, chunks, bytes, records, spans: spanArray(records), window: { offset: 0, bytes } };
}

/** The same bytes cut into records at other places (`cuts`: ascending offsets), each channel's runs kept apart. */
export function rechunk(rec: Recording, cuts: readonly number[]): ChannelChunk[] {
  const out: ChannelChunk[] = [];
  let c = 0;
  for (const chunk of rec.chunks) {
    let from = chunk.offset;
    const end = chunk.offset + chunk.bytes.length;
    while (c < cuts.length && cuts[c]! <= from) c++;
    for (; c < cuts.length && cuts[c]! < end; c++) {
      out.push({ channel: chunk.channel, offset: from, bytes: rec.bytes.subarray(from, cuts[c]) });
      from = cuts[c]!;
    }
    out.push({ channel: chunk.channel, offset: from, bytes: rec.bytes.subarray(from, end) });
  }
  return out;
}

/** Environment for recorded programs: a colour-capable terminal, UTF-8, no user config. */
export function recordEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  delete env.NO_COLOR;
  return { ...env, TERM: "xterm-256color", LANG: "C.UTF-8", LC_ALL: "C.UTF-8", ...extra };
}

export interface PtyDriver {
  readonly run: PtyRun;
  /** Resize the window and note it at the byte count received so far, as derun records it. */
  resize(cols: number, rows: number): void;
}

/**
 * Runs `argv` on a real PTY of `cols` x `rows`; `drive` types, resizes and waits for what it needs,
 * and may kill the program (a full-screen one still running at the end). PTY reads arrive in
 * pieces of whatever size; the recording keeps them as 4 KiB records.
 */
export async function recordPty(
  argv: readonly string[],
  options: { cols?: number; rows?: number; cwd?: string; env?: Record<string, string>; drive?: (driver: PtyDriver) => Promise<void> },
): Promise<Recording> {
  const size = { cols: options.cols ?? 120, rows: options.rows ?? 30 };
  const run = spawnInPty(argv, {
    env: options.env ?? recordEnv(),
    cols: size.cols,
    rows: size.rows,
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  const resizes: ResizeEvent[] = [];
  const driver: PtyDriver = {
    run,
    resize(cols, rows) {
      resizes.push({ offset: run.output().length, cols, rows });
      run.resize(cols, rows);
    },
  };
  try {
    await options.drive?.(driver);
  } catch (error) {
    run.proc.kill("SIGKILL");
    await run.exited;
    throw error;
  }
  await run.exited;
  const all = run.output();
  const parts: Array<{ channel: DerunOutputChannel; bytes: Uint8Array }> = [];
  for (let at = 0; at < all.length; at += 4096) parts.push({ channel: "pty", bytes: all.subarray(at, at + 4096) });
  return recording(parts, size, resizes);
}

/** Runs `argv` with stdout and stderr on pipes, recording both as they arrive. */
export async function recordPipe(
  argv: readonly string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<Recording> {
  const proc = Bun.spawn([...argv], { cwd: options.cwd, env: options.env ?? recordEnv(), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const parts: Array<{ channel: DerunOutputChannel; bytes: Uint8Array }> = [];
  const pump = async (stream: ReadableStream<Uint8Array>, channel: DerunOutputChannel) => {
    for await (const bytes of stream) parts.push({ channel, bytes: bytes.slice() });
  };
  await Promise.all([pump(proc.stdout, "stdout"), pump(proc.stderr, "stderr"), proc.exited]);
  return recording(parts);
}

const decoder = new TextDecoder();
/** Everything a recording's program wrote, as text (for asserting what the raw bytes hold). */
export const rawText = (rec: Recording): string => decoder.decode(rec.bytes);
