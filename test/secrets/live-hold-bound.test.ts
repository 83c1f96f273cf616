/**
 * The hold at a live tail is bounded (src/transcript/live-hold.ts, docs/secrets.md): a word that
 * looks like a piece of a token and is never completed is shown as it stands once it is older than
 * the hold (500 ms by default), never before; the lines before it are not held, and DERUN_LIVE_HOLD_MS
 * is checked like any input (a bad value stops the reader with its usage error, exit 2, nothing read).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { derunArgv, derunEnv, runDerun, tempDir, text } from "../helpers/cli.ts";
import { collect, startLive, waitUntil } from "../helpers/cli-recordings.ts";
import { connectAgent, type AgentClient } from "../helpers/agent.ts";

const PIECE = "aB3dE5gH7jK9mN1pQrS";
const HOLD_MS = 500;
const state = tempDir("derun-live-hold-");
let agent: AgentClient;

beforeAll(async () => {
  agent = await connectAgent(state.path);
});

afterAll(async () => {
  await agent?.[Symbol.asyncDispose]();
  state[Symbol.dispose]();
});

test("a piece never completed is shown as it stands once older than the hold, never before", async () => {
  const live = await startLive(state.path, "bound");
  live.write("ready\n");
  const tail = Bun.spawn([...derunArgv(), "tail", "-f", "bound"], { env: derunEnv(state.path), stdout: "pipe", stderr: "pipe" });
  const out = collect(tail.stdout);
  await waitUntil(() => text(out.bytes()).includes("ready\n"), "tail printing the first line");
  const from = (await agent.call("derun_read_output", { session_id: "bound" })).result.next_cursor;
  live.write(`key: ${PIECE} ok\nnext line\n`);
  // Polls of the raw read from just after `ready`, each with the time its answer came back.
  const polls: Array<{ received: number; data: string; timestamp: string }> = [];
  await waitUntil(
    async () => {
      const a = await agent.call("derun_read_output", { session_id: "bound", cursor: from });
      const received = Date.now();
      const chunk = a.result.chunks[0];
      polls.push({ received, data: a.result.chunks.map((c: { data: string }) => c.data).join(""), timestamp: chunk?.timestamp ?? "" });
      return polls.at(-1)!.data.includes("next line");
    },
    "the held line shown",
    15_000,
  );
  const written = Date.parse(polls.find((p) => p.timestamp)!.timestamp);
  // A read answered before the hold ended never shows the piece (one answered later may: that is the bound).
  const early = polls.filter((p) => p.received < written + HOLD_MS);
  expect(early.filter((p) => p.data.includes(PIECE))).toEqual([]);
  // What comes before the piece is not held: the line's start is shown as soon as it is read.
  for (const p of early) if (p.data) expect(p.data).toBe("key: ");
  // Shown as it stands (nothing masked: it was no secret), whole, in order, by tail -f too.
  expect(polls.at(-1)!.data).toBe(`key: ${PIECE} ok\nnext line\n`);
  await waitUntil(() => text(out.bytes()).includes("next line\n"), "tail printing the held line");
  expect(text(out.bytes())).toEndWith(`ready\nkey: ${PIECE} ok\nnext line\n`);
  live.end();
  expect(await live.exited).toBe(0);
  expect(await tail.exited).toBe(0);
}, 60_000);

test("DERUN_LIVE_HOLD_MS out of range or not a number stops the reader with its usage error (exit 2)", async () => {
  for (const bad of ["abc", "-1", "10001", "1.5", " 500"]) {
    const done = await runDerun(["cat", "bound"], { stateRoot: state.path, env: { DERUN_LIVE_HOLD_MS: bad } });
    // The line, and the hint every usage error of derun gives.
    const [line, ...rest] = text(done.stderr).trim().split("\n");
    const hint = ['Run "derun cat --help" for usage.'];
    expect({ bad, code: done.exitCode, rest, out: done.stdout.length }).toEqual({ bad, code: 2, rest: hint, out: 0 });
    expect(line).toStartWith("derun: DERUN_LIVE_HOLD_MS takes whole milliseconds from 0 to 10000 (got ");
  }
  const ok = await runDerun(["cat", "bound"], { stateRoot: state.path, env: { DERUN_LIVE_HOLD_MS: "0" } });
  expect(ok.exitCode).toBe(0);
}, 60_000);
