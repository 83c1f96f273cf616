/**
 * A wait that starts before its session: derun_wait_command called (SDK Client over stdio to the
 * compiled `derun mcp`, its watch on sessions/ seen), then a new, short `derun run` starts and ends.
 * The figure is the time from the session's recorded end (final.json's ended_at) to the answer at
 * the client. The wake figure above waits on sessions that exist already, so it never saw the
 * wait that slept until its 1 s safety poll (600-700 ms past the end, in about half the tries).
 * With `--baseline`, the previous build's server and `derun run` are measured the same way,
 * interleaved.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { watched } from "../test/helpers/inotify.ts";
import type { BenchContext } from "./lib/context.ts";
import { derunEnv, stateRoot } from "./lib/derun.ts";
import { interleave, type Side } from "./lib/interleave.ts";
import { connectMcp, mcpPid, type McpSession } from "./lib/mcp-client.ts";
import { baselineSide, type Figure } from "./lib/report.ts";
import { summarize } from "./lib/stats.ts";

/** One side: a server of `binary` on its own state root, each try a new `binary run` after the wait is armed. */
async function side(ctx: BenchContext, binary: string, name: string): Promise<{ try: Side } & AsyncDisposable> {
  const root = stateRoot(ctx.dir, `wait-new-${name}`);
  const sessions = path.join(root, "sessions");
  fs.mkdirSync(sessions, { recursive: true, mode: 0o700 });
  const env = derunEnv(root);
  const mcp: McpSession = await connectMcp(binary, env);
  await mcp.call("derun_list_sessions", { limit: 1 });
  const pid = mcpPid(binary, root);
  if (pid === undefined) throw new Error(`${name}: derun mcp's pid not found`);
  let n = 0;
  return {
    try: async () => {
      const id = `new-${n++}`;
      const answer = mcp.call("derun_wait_command", { timeout_ms: 30000 });
      await watched(() => pid, sessions);
      // Started by a shell that leaves it running: a child of the bench's own whose exit Bun is
      // waiting for delayed the bench's reading of the server's answer by up to 900 ms (a Python
      // client, or this one, saw every answer within 20 ms of the end once the run was not its child).
      const run = Bun.spawn(["sh", "-c", `"$0" run --session-id ${id} -- sh -c 'sleep 0.2; echo done' >/dev/null &`, binary], {
        env,
        stdin: "ignore",
        stdout: "ignore",
        stderr: "inherit",
      });
      await run.exited;
      const result = await answer;
      const received = Date.now();
      if (result.timed_out || result.session?.session_id !== id)
        throw new Error(`${name}: expected session ${id}, got ${JSON.stringify(result).slice(0, 300)}`);
      return received - Date.parse(result.session.ended_at);
    },
    [Symbol.asyncDispose]: () => mcp[Symbol.asyncDispose](),
  };
}

export async function waitNewSession(ctx: BenchContext): Promise<Figure> {
  const tries = ctx.quick ? 6 : 20;
  ctx.progress(
    `derun_wait_command for a session that starts after the wait: ${tries} tries${ctx.baseline ? " (and the previous build)" : ""}`,
  );
  await using derun = await side(ctx, ctx.derun, "derun");
  await using previous = ctx.baseline === undefined ? undefined : await side(ctx, ctx.baseline, "baseline");
  const samples = await interleave(tries, { derun: derun.try, baseline: previous?.try });
  const wake = summarize(samples.derun);
  const late = samples.derun.filter((ms) => ms > 100).length;
  return {
    name: "derun_wait_command, session new after the wait",
    unit: "ms",
    derun: wake,
    target: "max <= 100 ms",
    met: wake.max <= 100,
    ...baselineSide(samples.derun, samples.baseline),
    notes:
      `recorded end (final.json's ended_at, ms) -> answer at the client; ` +
      `p50 ${wake.median.toFixed(0)} ms, max ${wake.max.toFixed(0)} ms, ` +
      `${late} of ${tries} over 100 ms; each try a new \`derun run -- sh -c 'sleep 0.2; echo done'\` ` +
      "started once the wait's watch is seen",
  };
}
