/**
 * derun_wait_output with `until`, over stdio, while this test writes the session step by step with
 * the store's own writer: the answer comes once the matching line is committed and not before (a
 * line split over several records, a non-matching line first), a prompt matches without its LF,
 * and a session that ends, a timeout and a bad pattern each give their own answer.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openFileStore } from "../../src/core/file-store/index.ts";
import type { SessionWriter } from "../../src/core/store.ts";
import { tempDir } from "../helpers/cli.ts";
import { connectAgent, type AgentAnswer, type AgentClient } from "./_agent.ts";
import { sessionOptions } from "./_harness.ts";

const root = tempDir("derun-wait-until-");
const store = openFileStore({ root: root.path });
let agent: AgentClient;
const utf8 = (s: string) => new TextEncoder().encode(s);

beforeAll(async () => {
  agent = await connectAgent(root.path);
});
afterAll(async () => {
  await agent[Symbol.asyncDispose]();
  root[Symbol.dispose]();
});

/** A call in flight, and whether its answer has come. */
function pending(call: Promise<AgentAnswer>) {
  const state = { settled: false };
  const answer = call.finally(() => (state.settled = true));
  return { answer, get settled() { return state.settled; } };
}

/** Until the server reads `bytes` committed bytes in session `id` (another call sees them: the wait's wake came from the same change). */
async function committed(id: string, bytes: number): Promise<void> {
  const read = await agent.call("derun_wait_output", { session_id: id, cursor: String(bytes - 1), timeout_ms: 10000 });
  expect(Number(read.result.next_cursor)).toBe(bytes);
}

describe("derun_wait_output until", () => {
  let writer: SessionWriter;
  let written = 0;
  const open = async (id: string) => {
    writer = await store.create(sessionOptions(id));
    await writer.started({ pid: process.pid, transportMode: "pipe", ttyAttached: false });
    written = 0;
  };
  const write = async (id: string, text: string) => {
    writer.append("stdout", utf8(text));
    written += utf8(text).length;
    await committed(id, written);
  };

  test("returns once the matching line is written, not before: a line split over records, non-matching lines first", async () => {
    await open("server");
    await write("server", "booting\n");
    const wait = pending(agent.call("derun_wait_output", { session_id: "server", cursor: "0", until: "listening on port \\d+", timeout_ms: 60000 }));
    await write("server", "\x1b[2mloading config\x1b[0m\n");
    expect(wait.settled).toBe(false);
    await write("server", "listen");
    expect(wait.settled).toBe(false);
    await write("server", "ing on port ");
    expect(wait.settled).toBe(false);
    const before = written;
    await write("server", "8080\nready for requests\n");
    const { result, text } = await wait.answer;
    expect(result).toMatchObject({ match: "listening on port 8080", timed_out: false, eof: false, session_state: "running" });
    expect(result.chunks).toHaveLength(1);
    expect(result.chunks[0]).toMatchObject({ channel: "stdout", data: "listening on port 8080", end_cursor: String(before + 5) });
    expect(result.next_cursor).toBe(String(before + 5));
    expect(text.split("\n")[0]).toContain('matched "listening on port 8080"');
    // The next wait goes on after the matching line.
    const next = await agent.call("derun_wait_output", { session_id: "server", cursor: result.next_cursor, until: "^ready", timeout_ms: 10000 });
    expect(next.result.match).toBe("ready");
    await writer[Symbol.asyncDispose]();
  });

  test("a prompt matches while it is the line being written; colours do not get in the way", async () => {
    await open("prompt");
    await write("prompt", "connecting\n");
    const wait = pending(agent.call("derun_wait_output", { session_id: "prompt", cursor: "0", until: "^Password: $", timeout_ms: 60000 }));
    await write("prompt", "\x1b[1mPass");
    expect(wait.settled).toBe(false);
    await write("prompt", "word:\x1b[0m ");
    const { result } = await wait.answer;
    expect(result).toMatchObject({ match: "Password: ", next_cursor: String(written), at_tail: true, timed_out: false });
    await writer[Symbol.asyncDispose]();
  });

  test("the session ends without a match: eof, no match; a timeout: timed_out at the committed end", async () => {
    await open("ends");
    await write("ends", "step 1\n");
    const timedOut = await agent.call("derun_wait_output", { session_id: "ends", cursor: "0", until: "never printed", timeout_ms: 300 });
    expect(timedOut.result).toMatchObject({ timed_out: true, eof: false, next_cursor: "7", chunks: [] });
    expect(timedOut.result.match).toBeUndefined();
    const wait = pending(agent.call("derun_wait_output", { session_id: "ends", cursor: "7", until: "never printed", timeout_ms: 60000 }));
    await write("ends", "step 2\n");
    expect(wait.settled).toBe(false);
    await writer.finalize({ state: "exited", exit_code: 3 });
    await writer[Symbol.asyncDispose]();
    const { result } = await wait.answer;
    expect(result).toMatchObject({ eof: true, timed_out: false, session_state: "exited", next_cursor: "14", chunks: [] });
  });

  test("a line already written past the cursor answers at once; bad patterns are one-line invalid_argument", async () => {
    await open("early");
    await write("early", "error: disk full\nmore\n");
    const found = await agent.call("derun_wait_output", { session_id: "early", cursor: "0", until: "^error: (.+)$", timeout_ms: 60000 });
    expect(found.result).toMatchObject({ match: "error: disk full", next_cursor: "17" });
    for (const until of ["(unclosed", "(a+)+$", ""]) {
      const bad = await agent.call("derun_wait_output", { session_id: "early", cursor: "0", until });
      expect(bad.isError).toBe(true);
      expect(bad.result.error.code).toBe("invalid_argument");
      expect(bad.text).not.toContain("\n");
    }
    await writer[Symbol.asyncDispose]();
  });

  test("max_bytes clips the matching line (its cursors span it whole); base64 or view raw with until are refused", async () => {
    await open("long");
    const line = `start ${"é".repeat(450_000)}`;
    await write("long", `${line}\n`);
    const found = await agent.call("derun_wait_output", { session_id: "long", cursor: "0", until: "^start", max_bytes: 101, timeout_ms: 10000 });
    expect(found.result).toMatchObject({ match: "start", next_cursor: String(written), timed_out: false });
    expect(found.result.chunks).toHaveLength(1);
    // 101 bytes: "start " and 47 two-byte characters, never half of one.
    expect(found.result.chunks[0]).toMatchObject({ start_cursor: "0", end_cursor: String(written), data: `start ${"é".repeat(47)}` });
    const wide = await agent.call("derun_wait_output", { session_id: "long", cursor: "0", until: "é+", max_bytes: 7, timeout_ms: 10000 });
    expect(wide.result.match).toBe("ééé");
    for (const mode of [{ encoding: "base64" }, { view: "raw" }]) {
      const refused = await agent.call("derun_wait_output", { session_id: "long", cursor: "0", until: "start", ...mode });
      expect(refused.isError).toBe(true);
      expect(refused.result.error.code).toBe("invalid_argument");
      expect(refused.text).toBe(`until answers a line of the text view: leave out ${Object.entries(mode).map(([k, v]) => `${k} "${v}"`)[0]}`);
    }
    const text = await agent.call("derun_wait_output", { session_id: "long", cursor: "0", until: "start", view: "text", encoding: "text", max_bytes: 4 });
    expect(text.result.chunks[0].data).toBe("star");
    await writer[Symbol.asyncDispose]();
  });
});
