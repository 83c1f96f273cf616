/**
 * A regular expression never holds the server (issue 22, item 2). The recorded program chooses the
 * text, so lines of `a` make `.*a.*b$` take the native engine about a second each. Over real stdio
 * with the SDK's own client: derun_wait_output with `until` answers at its timeout_ms, a search
 * answers in bounded time, and `ping` is answered within 100 ms while such a search runs; `derun
 * grep` with the pattern finishes. The sessions are written with the store's own writer.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openFileStore } from "../../src/file-store/index.ts";
import type { SessionWriter } from "../../src/core/store.ts";
import { runDerun, tempDir, text } from "../helpers/cli.ts";
import { connectAgent, type AgentClient } from "../helpers/agent.ts";
import { sessionOptions } from "../helpers/harness.ts";

const HOSTILE = ".*a.*b$";
/** A line of `a` (1 KiB with its LF): no `b`, so every split of it is tried. */
const LINE = `${"a".repeat(1023)}\n`;

const root = tempDir("derun-hostile-regex-");
const store = openFileStore({ root: root.path });
let agent: AgentClient;
let live: SessionWriter;

async function write(id: string, lines: number, finish: boolean): Promise<SessionWriter> {
  const writer = await store.create(sessionOptions(id));
  await writer.started({ pid: process.pid, transportMode: "pipe", ttyAttached: false });
  const block = new TextEncoder().encode(LINE.repeat(64));
  for (let n = 0; n < lines; n += 64) writer.append("stdout", block.subarray(0, Math.min(64, lines - n) * LINE.length));
  if (finish) {
    await writer.finalize({ state: "exited", exit_code: 0 });
    await writer[Symbol.asyncDispose]();
  }
  return writer;
}

beforeAll(async () => {
  live = await write("small", 100, false); // live: a wait has to wait its timeout out
  await write("large", 20_000, true); // 20 MB
  agent = await connectAgent(root.path);
});
afterAll(async () => {
  await agent[Symbol.asyncDispose]();
  await live.finalize({ state: "exited", exit_code: 0 });
  await live[Symbol.asyncDispose]();
  root[Symbol.dispose]();
});

describe("a hostile regular expression", () => {
  test("derun_wait_output until answers at its timeout_ms over 100 lines of 1 KiB (13 s before)", async () => {
    const started = performance.now();
    const answer = await agent.call("derun_wait_output", { session_id: "small", cursor: "0", until: HOSTILE, timeout_ms: 1000 });
    const ms = performance.now() - started;
    expect(answer.isError).toBe(false);
    expect(answer.result).toMatchObject({ timed_out: true, next_cursor: String(100 * LINE.length) });
    expect(ms).toBeGreaterThanOrEqual(1000);
    expect(ms).toBeLessThan(3000);
  });

  test("derun_wait_output until stops inside 20 MB at timeout_ms, and the next wait goes on from where it stopped", async () => {
    const started = performance.now();
    const answer = await agent.call("derun_wait_output", { session_id: "large", cursor: "0", until: `${HOSTILE}|never`, timeout_ms: 300 });
    expect(performance.now() - started).toBeLessThan(2000);
    const cursor = Number(answer.result.next_cursor);
    if (answer.result.timed_out) {
      expect(cursor % LINE.length).toBe(0); // at a line's start
      expect(cursor).toBeLessThan(20_000 * LINE.length);
    } else expect(cursor).toBe(20_000 * LINE.length); // a fast machine read it all
  });

  test("ping is answered within 100 ms while a search of 20 MB with it runs, and the search answers", async () => {
    const search = agent.call("derun_search_output", { session_id: "large", pattern: HOSTILE });
    let done = false;
    void search.then(() => (done = true));
    const pings: number[] = [];
    while (!done || pings.length < 3) {
      const started = performance.now();
      await agent.client.ping();
      pings.push(performance.now() - started);
      if (pings.length >= 50) break;
    }
    const answer = await search;
    expect(answer.isError).toBe(false);
    expect(answer.text).toContain("0 matching lines");
    pings.sort((a, b) => a - b);
    // The median on a loaded machine; each one well under the seconds a line took before.
    expect(pings[Math.floor(pings.length / 2)]!).toBeLessThan(100);
    expect(pings.at(-1)!).toBeLessThan(1000);
  });

  test("derun grep with it over 20 MB finishes (no match: exit 1)", async () => {
    const started = performance.now();
    const grep = await runDerun(["grep", HOSTILE, "large"], { stateRoot: root.path });
    expect([grep.exitCode, text(grep.stderr)]).toEqual([1, ""]);
    expect(performance.now() - started).toBeLessThan(40_000);
  });
});
