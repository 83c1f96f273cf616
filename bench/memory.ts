/**
 * Memory: peak RSS of `derun run` proxying a large output (pipe mode, stdout to /dev/null) and of
 * `derun mcp` reading that transcript back, each against the same at a small size. Flat means the
 * large run stays within 1.2x of the small one: nothing grows with the output.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { BenchContext } from "./lib/context.ts";
import { derunEnv, outputBin, stateRoot } from "./lib/derun.ts";
import { assertIntact, ByteCheck, digestFile, type Digest } from "./lib/files.ts";
import { interleave } from "./lib/interleave.ts";
import { connectMcp, readTranscript } from "./lib/mcp-client.ts";
import { readPeakRss, trackPeakRss } from "./lib/peak-rss.ts";
import { ratioFigure, type Figure } from "./lib/report.ts";

const MB = 1_000_000;
const BLOCK = 1 << 20;
/** The most a read may ask for: fewest round trips for a whole transcript. */
const READ_MAX_BYTES = 1 << 20;

interface Peaks {
  readonly run: number;
  readonly mcp: number;
}

/** The bytes `cat block` repeated `count` times produce. */
function expected(block: Uint8Array, count: number): Digest {
  const check = new ByteCheck();
  for (let i = 0; i < count; i++) check.update(block);
  return check.digest();
}

export async function memory(ctx: BenchContext): Promise<Figure[]> {
  const [small, large] = ctx.quick ? [10, 50] : [10, 1000];
  const reps = ctx.quick ? 1 : 2;
  const root = stateRoot(ctx.dir, "memory");
  const env = derunEnv(root);
  const blockFile = path.join(ctx.dir, "memory-block.bin");
  const block = crypto.getRandomValues(new Uint8Array(BLOCK));
  fs.writeFileSync(blockFile, block);
  let run = 0;
  // Hashing up to 1000 MiB takes a while: once per size, not per repetition.
  const wanted = new Map([small, large].map((mb) => [mb, expected(block, mb)]));

  /** Records `mb` MiB blocks through derun run, then reads them all back over MCP. */
  const measure = async (mb: number): Promise<Peaks> => {
    const id = `memory-${run++}`;
    const want = wanted.get(mb)!;
    const child = `i=0; while [ $i -lt ${mb} ]; do cat '${blockFile}'; i=$((i+1)); done`;
    const proc = Bun.spawn([ctx.derun, "run", "--session-id", id, "--", "sh", "-c", child], {
      env,
      stdin: "ignore",
      stdout: "ignore",
      stderr: "inherit",
    });
    const runPeak = await trackPeakRss(proc.pid, proc.exited);
    if (proc.exitCode !== 0) throw new Error(`derun run exited ${proc.exitCode}`);
    assertIntact(`derun transcript (${mb} blocks)`, await digestFile(outputBin(root, id)), want);

    await using mcp = await connectMcp(ctx.derun, env);
    const server = findMcpPid(ctx.derun);
    assertIntact(`derun mcp read-back (${mb} blocks)`, await readTranscript(mcp, id, "base64", READ_MAX_BYTES), want);
    const mcpPeak = readPeakRss(server);
    if (mcpPeak === undefined) throw new Error("derun mcp is gone before its memory was read");
    return { run: runPeak, mcp: mcpPeak };
  };

  ctx.progress(`memory: ${small} and ${large} MiB, ${reps} reps`);
  const results = { small: [] as Peaks[], large: [] as Peaks[] };
  await interleave(reps, {
    small: async () => (results.small.push(await measure(small)), 0),
    large: async () => (results.large.push(await measure(large)), 0),
  });
  const row = (name: string, pick: (p: Peaks) => number): Figure =>
    ratioFigure({
      name,
      unit: "MB",
      derun: results.large.map((p) => pick(p) / MB),
      anchor: { name: `${small} MiB`, samples: results.small.map((p) => pick(p) / MB) },
      maxRatio: 1.2,
      notes: `peak RSS (VmHWM) at ${large} MiB vs ${small} MiB; ${reps} interleaved reps`,
    });
  return [row("memory: derun run", (p) => p.run), row("memory: derun mcp", (p) => p.mcp)];
}

/** The pid of the `derun mcp` the SDK spawned (the only child of ours running `<derun> mcp`). */
function findMcpPid(derun: string): number {
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      const ppid = /^PPid:\s+(\d+)$/m.exec(fs.readFileSync(`/proc/${entry}/status`, "utf8"))?.[1];
      if (argv[0] === derun && argv[1] === "mcp" && Number(ppid) === process.pid) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  throw new Error("cannot find the derun mcp process");
}
