/**
 * Search throughput over every session (issue 25): about 1 GB of plain log lines in 64 sessions
 * (quick mode: 64 MB), written with the store's writer, one matching line in an old session.
 * `derun grep -F -c` (compiled, no session named: every session, the required literal's shortcut
 * through the raw bytes) and derun_search_output over stdio, beside `grep -F -c` on the same
 * output.bin files. MB/s of transcript bytes, wall clock; CPU-time rates in the notes (the machine
 * is shared).
 */
import * as fs from "node:fs";
import { openFileStore } from "../src/file-store/index.ts";
import { connectAgent } from "../test/helpers/agent.ts";
import { sessionOptions } from "../test/helpers/harness.ts";
import type { BenchContext } from "./lib/context.ts";
import { derunEnv, outputBin, stateRoot } from "./lib/derun.ts";
import { ratioFigure, type Figure } from "./lib/report.ts";

const NEEDLE = "ECONNREFUSED 10.1.2.3:5432";
const SESSIONS = 64;

/** Writes SESSIONS sessions of plain log lines, `bytes` in all; the needle in the 50th newest. */
export async function writeSessions(root: string, bytes: number): Promise<number> {
  const store = openFileStore({ root });
  const lines: string[] = [];
  for (let i = 0; i < 8192; i++)
    lines.push(
      `2026-11-26T12:${String(i % 60).padStart(2, "0")}:00.${String(i % 1000).padStart(3, "0")}Z INFO  http GET /api/items/${i} 200 ` +
        `${i % 97}ms\n`,
    );
  const block = new TextEncoder().encode(lines.join(""));
  const per = Math.max(1, Math.round(bytes / SESSIONS / block.length));
  let total = 0;
  for (let n = 0; n < SESSIONS; n++) {
    await using writer = await store.create(sessionOptions(`s${String(n).padStart(3, "0")}`));
    for (let k = 0; k < per; k++) {
      writer.append("stdout", block);
      total += block.length;
      if (n === SESSIONS - 50 && k === per >> 1)
        writer.append("stdout", new TextEncoder().encode(`2026-11-26T12:00:00.000Z ERROR db.pool connection refused: ${NEEDLE}\n`));
    }
    await writer.finalize({ state: "exited", exit_code: 0 });
  }
  return total;
}

/** CPU time in ms (Bun's resource usage is in nanoseconds). */
const cpuOf = (usage: { total: bigint } | undefined) => (usage ? Number(usage.total) / 1e6 : NaN);

export async function search(ctx: BenchContext): Promise<Figure[]> {
  const root = stateRoot(ctx.dir, "search");
  const size = ctx.quick ? 64e6 : 1e9;
  ctx.progress(`search: writing ${Math.round(size / 1e6)} MB in ${SESSIONS} sessions`);
  const bytes = await writeSessions(root, size);
  const files = fs.readdirSync(`${root}/sessions`).map((id) => outputBin(root, id));
  const reps = ctx.quick ? 1 : 3;
  const derunMs: number[] = [];
  const grepMs: number[] = [];
  const mcpMs: number[] = [];
  const cpu: number[] = [];
  const grepCpu: number[] = [];
  try {
    await using agent = await connectAgent(root, [ctx.derun]);
    for (let rep = 0; rep < reps; rep++) {
      ctx.progress(`search: rep ${rep + 1}/${reps}`);
      let started = performance.now();
      const derun = Bun.spawnSync([ctx.derun, "grep", "-F", "-c", NEEDLE], { env: derunEnv(root), stdout: "pipe", stderr: "pipe" });
      derunMs.push(performance.now() - started);
      cpu.push(cpuOf(derun.resourceUsage?.cpuTime));
      if (derun.exitCode !== 0 || !derun.stdout.toString().endsWith(":1\n"))
        throw new Error(
          `derun grep did not find the needle: ${derun.stdout.toString().slice(0, 200)} ${derun.stderr.toString().slice(0, 200)}`,
        );
      started = performance.now();
      const grep = Bun.spawnSync(["grep", "-F", "-c", NEEDLE, ...files], { stdout: "pipe" });
      grepMs.push(performance.now() - started);
      grepCpu.push(cpuOf(grep.resourceUsage?.cpuTime));
      started = performance.now();
      const found = await agent.call("derun_search_output", { pattern: NEEDLE, literal: true });
      mcpMs.push(performance.now() - started);
      if (!found.text.includes(`1 matching line · ${SESSIONS} of ${SESSIONS} sessions searched`))
        throw new Error(`derun_search_output: ${found.text.slice(0, 300)}`);
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  const rate = (ms: number) => bytes / 1e6 / (ms / 1000);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  const mb = `${Math.round(bytes / 1e6)} MB`;
  return [
    {
      ...ratioFigure({
        name: `search every session, required literal: ${mb}`,
        unit: "MB/s",
        derun: derunMs.map(rate),
        anchor: { name: "grep -F -c", samples: grepMs.map(rate) },
        maxRatio: Infinity,
        notes:
          `derun grep -F -c (compiled, ${SESSIONS} sessions, found in the 50th newest); CPU: derun ` +
          `${(bytes / 1e6 / median(cpu)).toFixed(0)} MB/s per CPU-second, grep ${(bytes / 1e6 / median(grepCpu)).toFixed(0)}; ` +
          `derun_search_output over stdio ${rate(median(mcpMs)).toFixed(0)} MB/s`,
      }),
      target: ">= 1000 MB/s per CPU-second",
      met: bytes / 1e6 / median(cpu) >= 1000,
    },
  ];
}
