/**
 * Live tail wake: the time from a byte entering a running session to `derun_wait_output` returning
 * it to an MCP client (the SDK Client over stdio to `derun mcp`). The child is `cat` on a pipe the
 * bench writes to, so one clock times the whole path: bench -> cat -> derun run -> output.bin and
 * index -> file-change wake in derun mcp -> JSON-RPC -> client. cat's own hop (tens of
 * microseconds) is included, so the figure is an upper bound.
 */
import type { BenchContext } from "./lib/context.ts";
import { derunEnv, outputBin, stateRoot } from "./lib/derun.ts";
import { assertIntact, ByteCheck, digestFile } from "./lib/files.ts";
import { connectMcp, untilSessionExists } from "./lib/mcp-client.ts";
import type { Figure } from "./lib/report.ts";
import { summarize } from "./lib/stats.ts";

export async function tailWake(ctx: BenchContext): Promise<Figure> {
  const wakes = ctx.quick ? 30 : 300;
  const root = stateRoot(ctx.dir, "tail");
  const env = derunEnv(root);
  const id = "tail";
  ctx.progress(`live tail wake: ${wakes} wakes`);
  const run = Bun.spawn([ctx.derun, "run", "--session-id", id, "--", "cat"], { env, stdin: "pipe", stdout: "ignore", stderr: "inherit" });
  await using mcp = await connectMcp(ctx.derun, env);
  await untilSessionExists(mcp, id);
  const sent = new ByteCheck();
  const samples: number[] = [];
  for (let n = 0; n < wakes; n++) {
    const byte = new Uint8Array([0x61 + (n % 26)]);
    const answer = mcp.call("derun_wait_output", { session_id: id, cursor: String(n), timeout_ms: 10000 });
    await Bun.sleep(5 + Math.random() * 10); // let the call park before the byte exists
    const started = performance.now();
    run.stdin.write(byte);
    run.stdin.flush();
    const result = await answer;
    samples.push(performance.now() - started);
    sent.update(byte);
    const data = result.chunks.map((chunk: { data: string }) => chunk.data).join("");
    if (result.timed_out || data !== String.fromCharCode(byte[0]!) || result.next_cursor !== String(n + 1)) {
      throw new Error(`wake ${n}: expected ${JSON.stringify(String.fromCharCode(byte[0]!))} at cursor ${n}, got ${JSON.stringify(result)}`);
    }
  }
  run.stdin.end();
  await run.exited;
  assertIntact("derun transcript", await digestFile(outputBin(root, id)), sent.digest());
  const wake = summarize(samples);
  return {
    name: "live tail wake",
    unit: "ms",
    derun: wake,
    target: "p50 <= 5 ms, p99 <= 25 ms",
    met: wake.median <= 5 && wake.p99 <= 25,
    notes:
      `p50 ${wake.median.toFixed(2)} ms, p99 ${wake.p99.toFixed(2)} ms, max ${wake.max.toFixed(2)} ms over ${wakes} one-byte ` +
      `wakes (SDK Client over stdio to compiled derun mcp)`,
  };
}
