/**
 * derun_wait_command's wake: the time from a session ending (its final.json written) to the
 * answer reaching an MCP client (the SDK Client over stdio to the compiled `derun mcp`), in a store
 * holding many sessions that ended before (quick: 300, full: 2,000): a wake must cost what the
 * sessions that can still end cost, not what every session does. The session is written by the
 * bench with the store's own writer, so one clock times the whole path: final.json -> file-change
 * wake -> the look -> the tail read -> JSON-RPC -> client. Compare with the live tail wake.
 */
import * as path from "node:path";
import { openFileStore } from "../src/file-store/index.ts";
import { sessionOptions } from "../test/helpers/harness.ts";
import { watched } from "../test/helpers/inotify.ts";
import { serverPid } from "../test/helpers/agent.ts";
import type { BenchContext } from "./lib/context.ts";
import { derunEnv, stateRoot } from "./lib/derun.ts";
import { connectMcp } from "./lib/mcp-client.ts";
import type { Figure } from "./lib/report.ts";
import { summarize } from "./lib/stats.ts";

/**
 * The wait after its watch is seen. Before this branch's change, with 2,000 sessions the wait read
 * every session (and masked them) for longer than 100 ms after arming its watch, and an end in that
 * time was taken for one before the call (the wait then timed out): measuring that code takes
 * BENCH_PARK_MS=2000.
 */
const PARK_MS = Number(process.env.BENCH_PARK_MS ?? 100);

export async function waitCommandWake(ctx: BenchContext): Promise<Figure> {
  const wakes = ctx.quick ? 30 : 200;
  const old = ctx.quick ? 300 : 2000;
  const root = stateRoot(ctx.dir, "wait-command");
  const store = openFileStore({ root });
  ctx.progress(`derun_wait_command wake: writing ${old} ended sessions`);
  for (let n = 0; n < old; n++) {
    await using w = await store.create(sessionOptions(`old${String(n).padStart(5, "0")}`));
    w.append("stdout", new TextEncoder().encode(`line of session ${n}\n`));
    await w.finalize({ state: "exited", exit_code: n % 7 });
  }
  ctx.progress(`derun_wait_command wake: ${wakes} wakes`);
  await using mcp = await connectMcp(ctx.derun, derunEnv(root));
  await mcp.call("derun_list_sessions", { limit: 1 });
  const pid = serverPid(root);
  if (pid === undefined) throw new Error("derun mcp's pid not found");
  const samples: number[] = [];
  for (let n = 0; n < wakes; n++) {
    const id = `live${String(n).padStart(4, "0")}`;
    const live = await store.create(sessionOptions(id));
    live.append("stdout", new TextEncoder().encode(`working ${n}\nfailed ${n}\n`));
    const answer = mcp.call("derun_wait_command", { timeout_ms: 30000 });
    // Parked: its watch is on the live session's directory (set after its start has read the
    // sessions), and a little more: before this branch the watch was set before that read, so an
    // end right after it could be taken for one that came before the call.
    await watched(() => pid, path.join(root, "sessions", id));
    await Bun.sleep(PARK_MS);
    const started = performance.now();
    await live.finalize({ state: "exited", exit_code: 1 });
    const result = await answer;
    samples.push(performance.now() - started);
    if (result.timed_out || result.session?.session_id !== id || !result.lines.includes(`failed ${n}`))
      throw new Error(`wake ${n}: expected session ${id} with its tail, got ${JSON.stringify(result).slice(0, 300)}`);
  }
  const wake = summarize(samples);
  return {
    name: "derun_wait_command wake",
    unit: "ms",
    derun: wake,
    target: "p99 <= 100 ms",
    met: wake.p99 <= 100,
    notes:
      `p50 ${wake.median.toFixed(2)} ms, p99 ${wake.p99.toFixed(2)} ms, max ${wake.max.toFixed(2)} ms over ${wakes} session ends ` +
      `among ${old} ended sessions (SDK Client over stdio to compiled derun mcp; final.json written -> answer)`,
  };
}
