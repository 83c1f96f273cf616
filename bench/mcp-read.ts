/**
 * MCP read throughput: a plain JSON-RPC client (./lib/plain-mcp.ts, as issue 37 measures it) pages
 * through a recorded transcript from cursor "0" to eof with the
 * default max_bytes, in base64 and in text, vs `cat output.bin > /dev/null`. The transcript is valid
 * UTF-8 (ASCII with multi-byte characters, some split across chunk edges), so both encodings can be
 * checked byte for byte against the file.
 */
import * as path from "node:path";
import type { BenchContext } from "./lib/context.ts";
import { derunEnv, outputBin, stateRoot } from "./lib/derun.ts";
import { assertIntact, digestFile, writeFileOfBlocks, type Digest } from "./lib/files.ts";
import { interleave } from "./lib/interleave.ts";
import { READ_DEFAULT_MAX_BYTES } from "../src/tools/index.ts";
import { cpuMs, readTranscript, type McpSession } from "./lib/mcp-client.ts";
import { connectPlainMcp } from "./lib/plain-mcp.ts";
import { baselineSide, type Figure } from "./lib/report.ts";
import { pairRatios, summarize } from "./lib/stats.ts";

const MiB = 1 << 20;

/** Writes `size` bytes of UTF-8 text mixing 1- to 4-byte characters; returns the digest. */
function writeTextFile(file: string, size: number): Digest {
  const line = Buffer.from("derun bench: plain ASCII, é ü ñ, € ✓ 漢字, 😀 🚀 and more text\n");
  const block = Buffer.concat(Array.from({ length: Math.ceil(MiB / line.length) }, () => line)).subarray(0, MiB - (MiB % line.length));
  return writeFileOfBlocks(file, size, (left) => block.subarray(0, Math.min(left, block.length)));
}

/** CPU ms each server spent in the reads, by side (wall time on a shared machine is mostly the others'). */
const serverCpu: Record<string, number[]> = {};

/** Pages from cursor "0" to eof; checks the bytes; resolves with wall ms (the server's CPU ms kept by `side`). */
async function readAll(
  mcp: McpSession,
  sessionId: string,
  encoding: "base64" | "text",
  want: Digest,
  side: string,
  pid?: number,
): Promise<number> {
  const cpu = pid === undefined ? undefined : cpuMs(pid);
  const started = performance.now();
  const got = await readTranscript(mcp, sessionId, encoding);
  const ms = performance.now() - started;
  if (pid !== undefined) (serverCpu[side] ??= []).push(cpuMs(pid) - cpu!);
  assertIntact(`derun_read_output (${encoding})`, got, want);
  return ms;
}

async function catToNull(file: string): Promise<number> {
  const started = performance.now();
  const proc = Bun.spawn(["cat", file], { stdin: "ignore", stdout: "ignore", stderr: "inherit" });
  await proc.exited;
  if (proc.exitCode !== 0) throw new Error(`cat exited ${proc.exitCode}`);
  return performance.now() - started;
}

export async function mcpRead(ctx: BenchContext): Promise<Figure> {
  const size = (ctx.quick ? 8 : 64) * MiB;
  const reps = ctx.quick ? 1 : 3;
  const root = stateRoot(ctx.dir, "mcp-read");
  const env = derunEnv(root);
  const file = path.join(ctx.dir, "mcp-read-input.txt");
  const want = writeTextFile(file, size);
  const id = "mcp-read";
  ctx.progress(`MCP read throughput: ${size / MiB} MiB x ${reps} (base64, text)`);
  const record = Bun.spawn([ctx.derun, "run", "--session-id", id, "--", "cat", file], {
    env,
    stdin: "ignore",
    stdout: "ignore",
    stderr: "inherit",
  });
  await record.exited;
  const transcript = outputBin(root, id);
  assertIntact("derun transcript", await digestFile(transcript), want);
  await using mcp = await connectPlainMcp(ctx.derun, env);
  // The previous build's server reads the same transcript, interleaved with this one's.
  await using previous = ctx.baseline === undefined ? undefined : await connectPlainMcp(ctx.baseline, env);
  await mcp.call("derun_list_sessions", { limit: 1 });
  await previous?.call("derun_list_sessions", { limit: 1 });
  const pid = mcp.pid;
  const previousPid = previous?.pid;
  const samples = await interleave(reps, {
    base64: () => readAll(mcp, id, "base64", want, "base64", pid),
    text: () => readAll(mcp, id, "text", want, "text", pid),
    cat: () => catToNull(transcript),
    baseline: previous && (() => readAll(previous, id, "base64", want, "baseline", previousPid)),
    baselineText: previous && (() => readAll(previous, id, "text", want, "baselineText", previousPid)),
  });
  const mbps = (ms: number) => size / 1e6 / (ms / 1000);
  const calls = Math.ceil(size / READ_DEFAULT_MAX_BYTES);
  const cpuNote = (side: string) => {
    const cpu = serverCpu[side];
    if (!cpu) return "";
    const median = summarize(cpu).median;
    return ` (server CPU ${(median / calls).toFixed(2)} ms a call, ${mbps(median).toFixed(0)} MB/s of its CPU)`;
  };
  const base64 = summarize(samples.base64);
  const text = summarize(samples.text);
  const cat = summarize(samples.cat);
  return {
    name: "MCP read throughput",
    unit: "ms",
    derun: base64,
    anchor: { name: "cat", summary: cat },
    extra: { text },
    ratio: summarize(pairRatios(samples.base64, samples.cat)),
    ...baselineSide(samples.base64, samples.baseline),
    notes:
      `${size / MiB} MiB from cursor 0 with default max_bytes: base64 ${mbps(base64.median).toFixed(0)} MB/s${cpuNote("base64")}, ` +
      `text ${mbps(text.median).toFixed(0)} MB/s${cpuNote("text")} (ratio to cat ${(text.median / cat.median).toFixed(1)}), cat ` +
      `${mbps(cat.median).toFixed(0)} MB/s` +
      (samples.baseline.length > 0
        ? `; previous build: base64 ${mbps(summarize(samples.baseline).median).toFixed(0)} MB/s${cpuNote("baseline")}, ` +
          `text ${mbps(summarize(samples.baselineText).median).toFixed(0)} MB/s${cpuNote("baselineText")}`
        : "") +
      `; ${reps} interleaved reps, a plain JSON-RPC client`,
  };
}
