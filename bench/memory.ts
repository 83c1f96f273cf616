/**
 * Memory, against issue 37's ceilings and beside Bun's own floor (a compiled program that prints a
 * line and waits): `derun mcp` at rest (after initialize, tools/list and one derun_list_sessions),
 * `derun mcp` at its peak after reading a whole large transcript back, and the peak of `derun run`
 * moving that transcript's bytes through pipes and through a PTY. The small size's peaks stay as the
 * ratio rows they were (flat: nothing grows with the output). Every transcript and read-back is
 * checked byte for byte; the sides run interleaved.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { BenchContext } from "./lib/context.ts";
import { derunEnv, outputBin, stateRoot } from "./lib/derun.ts";
import { runInFastPty } from "./lib/fast-pty.ts";
import { assertIntact, ByteCheck, digestFile, type Digest } from "./lib/files.ts";
import { interleave } from "./lib/interleave.ts";
import { connectMcp, readTranscript } from "./lib/mcp-client.ts";
import { readPeakRss, trackPeakRss } from "./lib/peak-rss.ts";
import { ratioFigure, type Figure } from "./lib/report.ts";
import { buildFloor, floorResident, residentBytes } from "./lib/runtime-floor.ts";
import { summarize } from "./lib/stats.ts";

const MB = 1_000_000;
const BLOCK = 1 << 20;
/** The most a read may ask for: fewest round trips for a whole transcript. */
const READ_MAX_BYTES = 1 << 20;
/** Issue 37's ceilings, in MB. */
const CEILING = { mcpRest: 60, mcpRead: 100, run: 45 } as const;

interface Peaks {
  readonly run: number;
  readonly mcp: number;
  /** VmRSS after initialize, tools/list and one derun_list_sessions. */
  readonly rest: number;
  /** VmRSS once the read-back is done. */
  readonly after: number;
}

/** The bytes `cat block` repeated `count` times produce. */
function expected(block: Uint8Array, count: number): Digest {
  const check = new ByteCheck();
  for (let i = 0; i < count; i++) check.update(block);
  return check.digest();
}

export async function memory(ctx: BenchContext): Promise<Figure[]> {
  const [small, large] = ctx.quick ? [10, 50] : [10, 1024];
  const reps = ctx.quick ? 1 : 2;
  const root = stateRoot(ctx.dir, "memory");
  const env = derunEnv(root);
  const blockFile = path.join(ctx.dir, "memory-block.bin");
  const block = crypto.getRandomValues(new Uint8Array(BLOCK));
  fs.writeFileSync(blockFile, block);
  const floorBinary = await buildFloor(ctx.dir);
  let run = 0;
  // Hashing up to 1 GiB takes a while: once per size, not per repetition.
  const wanted = new Map([small, large].map((mb) => [mb, expected(block, mb)]));
  const childOf = (mb: number) => `i=0; while [ $i -lt ${mb} ]; do cat '${blockFile}'; i=$((i+1)); done`;

  /** Records `mb` MiB blocks through derun run (pipes), then reads them all back over MCP. */
  const measure = async (mb: number): Promise<Peaks> => {
    const id = `memory-${run++}`;
    const want = wanted.get(mb)!;
    const proc = Bun.spawn([ctx.derun, "run", "--session-id", id, "--", "sh", "-c", childOf(mb)], {
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
    await mcp.listTools();
    await mcp.call("derun_list_sessions", {});
    const rest = residentBytes(server);
    assertIntact(`derun mcp read-back (${mb} blocks)`, await readTranscript(mcp, id, "base64", READ_MAX_BYTES), want);
    const mcpPeak = readPeakRss(server);
    const after = residentBytes(server);
    if (mcpPeak === undefined || rest === undefined || after === undefined) throw new Error("derun mcp is gone before its memory was read");
    return { run: runPeak, mcp: mcpPeak, rest, after };
  };

  /** The peak of `derun run` moving `mb` MiB through a PTY (the bench's C reader is its terminal). */
  const measurePty = async (mb: number): Promise<number> => {
    const id = `memory-pty-${run++}`;
    // Raw, so the transcript holds the blocks as written (no CR added before each LF).
    const argv = [ctx.derun, "run", "--session-id", id, "--", "sh", "-c", `stty raw -echo; ${childOf(mb)}`];
    const done = runInFastPty(ctx.dir, `derun run in a PTY (${mb} blocks)`, argv, env);
    const pid = await pidOf(argv, done);
    const peak = await trackPeakRss(pid, done);
    await done;
    assertIntact(`derun PTY transcript (${mb} blocks)`, await digestFile(outputBin(root, id)), wanted.get(mb)!);
    return peak;
  };

  ctx.progress(`memory: ${small} and ${large} MiB (pipes, PTY, MCP read-back), Bun's floor; ${reps} reps`);
  const results = { small: [] as Peaks[], large: [] as Peaks[], pty: [] as number[], floor: [] as number[] };
  await interleave(reps, {
    floor: async () => (results.floor.push(await floorResident(floorBinary)), 0),
    small: async () => (results.small.push(await measure(small)), 0),
    large: async () => (results.large.push(await measure(large)), 0),
    pty: async () => (results.pty.push(await measurePty(large)), 0),
  });
  return figures(results, { small, large, reps });
}

interface Results {
  readonly small: readonly Peaks[];
  readonly large: readonly Peaks[];
  readonly pty: readonly number[];
  readonly floor: readonly number[];
}

/** The rows: the ratios of old, then each ceiling beside Bun's floor. */
function figures(results: Results, { small, large, reps }: { small: number; large: number; reps: number }): Figure[] {
  const mb = (values: readonly number[]) => values.map((v) => v / MB);
  const floor = summarize(mb(results.floor));
  const row = (name: string, pick: (p: Peaks) => number): Figure =>
    ratioFigure({
      name,
      unit: "MB",
      derun: results.large.map((p) => pick(p) / MB),
      anchor: { name: `${small} MiB`, samples: results.small.map((p) => pick(p) / MB) },
      maxRatio: 1.2,
      notes: `peak RSS (VmHWM) at ${large} MiB vs ${small} MiB; ${reps} interleaved reps`,
    });
  /** An absolute figure: its median under a ceiling, Bun's floor beside it. */
  const ceiling = (name: string, samples: readonly number[], max: number, notes: string): Figure => ({
    name,
    unit: "MB",
    derun: summarize(mb(samples)),
    anchor: { name: "Bun's floor", summary: floor },
    target: `<= ${max} MB`,
    met: summarize(mb(samples)).median <= max,
    notes: `${notes}; Bun's floor: a compiled console.log(1) that waits, VmRSS; ${reps} interleaved reps`,
  });
  const all = [...results.small, ...results.large];
  return [
    row("memory: derun run", (p) => p.run),
    row("memory: derun mcp", (p) => p.mcp),
    ceiling(
      "memory: derun mcp at rest",
      all.map((p) => p.rest),
      CEILING.mcpRest,
      "VmRSS after initialize, tools/list and one derun_list_sessions (every server of the run)",
    ),
    ceiling(
      `memory: derun mcp, ${large} MiB read`,
      results.large.map((p) => p.mcp),
      CEILING.mcpRead,
      `peak RSS (VmHWM) after reading ${large} MiB back in 1 MiB base64 windows; VmRSS after: ` +
        `${summarize(mb(results.large.map((p) => p.after))).median.toFixed(1)} MB`,
    ),
    ceiling(
      `memory: derun run, ${large} MiB, pipes`,
      results.large.map((p) => p.run),
      CEILING.run,
      "peak RSS (VmHWM), stdout to /dev/null",
    ),
    ceiling(`memory: derun run, ${large} MiB, PTY`, results.pty, CEILING.run, "peak RSS (VmHWM), the bench's C reader as its terminal"),
  ];
}

/** The pid of the process running exactly `argv` (our grandchild, under the PTY reader), once it exists. */
async function pidOf(argv: readonly string[], done: Promise<unknown>): Promise<number> {
  let ended = false;
  done.finally(() => (ended = true)).catch(() => {});
  const wanted = argv.join("\0");
  while (!ended) {
    for (const entry of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").replace(/\0$/, "") === wanted) return Number(entry);
      } catch {
        // gone meanwhile
      }
    }
    await Bun.sleep(2);
  }
  throw new Error(`${argv.slice(0, 2).join(" ")} ended before its pid was found`);
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
