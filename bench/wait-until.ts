/**
 * Wait-until wake: the time from the matching line entering a running session to
 * `derun_wait_output({ until })` returning it to an MCP client (the SDK Client over stdio to
 * `derun mcp`), as bench/tail-wake.ts measures the plain wake. Before each matching line a line that
 * does not match is written, so the wait has woken once for nothing and gone back to waiting.
 */
import type { BenchContext } from "./lib/context.ts";
import { derunEnv, stateRoot } from "./lib/derun.ts";
import { connectMcp, untilSessionExists } from "./lib/mcp-client.ts";
import type { Figure } from "./lib/report.ts";
import { summarize } from "./lib/stats.ts";

export async function waitUntilWake(ctx: BenchContext): Promise<Figure> {
  const wakes = ctx.quick ? 30 : 300;
  const root = stateRoot(ctx.dir, "wait-until");
  const env = derunEnv(root);
  const id = "until";
  ctx.progress(`wait-until wake: ${wakes} wakes`);
  const run = Bun.spawn([ctx.derun, "run", "--session-id", id, "--", "cat"], { env, stdin: "pipe", stdout: "ignore", stderr: "inherit" });
  await using mcp = await connectMcp(ctx.derun, env);
  await untilSessionExists(mcp, id);
  const samples: number[] = [];
  let written = 0;
  const write = (text: string) => {
    run.stdin.write(text);
    run.stdin.flush();
    written += Buffer.byteLength(text);
  };
  for (let n = 0; n < wakes; n++) {
    const answer = mcp.call("derun_wait_output", { session_id: id, cursor: String(written), until: `^tick ${n}$`, timeout_ms: 10000 });
    await Bun.sleep(5 + Math.random() * 10); // let the call park before the bytes exist
    write(`noise ${n}\n`);
    await Bun.sleep(2 + Math.random() * 3); // the wait wakes for the noise and parks again
    const started = performance.now();
    write(`tick ${n}\n`);
    const result = await answer;
    samples.push(performance.now() - started);
    if (result.match !== `tick ${n}` || result.next_cursor !== String(written)) {
      throw new Error(`wake ${n}: expected "tick ${n}" ending at ${written}, got ${JSON.stringify(result).slice(0, 300)}`);
    }
  }
  run.stdin.end();
  await run.exited;
  const wake = summarize(samples);
  return {
    name: "wait-until wake",
    unit: "ms",
    derun: wake,
    target: "p50 <= 5 ms",
    met: wake.median <= 5,
    notes:
      `p50 ${wake.median.toFixed(2)} ms, p99 ${wake.p99.toFixed(2)} ms, max ${wake.max.toFixed(2)} ms over ${wakes} matching ` +
      `lines, each after a line that does not match (SDK Client over stdio to compiled derun mcp)`,
  };
}
