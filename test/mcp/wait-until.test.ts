/**
 * derun_wait_output with `until` while this test writes the session step by step with the store's
 * own writer: the answer comes once the matching line is committed and not before (a line split
 * over several records, a non-matching line first), a prompt matches without its LF, and a session
 * that ends, a timeout and a bad pattern each give their own answer. "Not before" is seen in this
 * process, where the store says when a wait parks: after each write the call must park again (it
 * read the new bytes and did not answer), not answer. The rest runs over stdio.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openFileStore } from "../../src/file-store/index.ts";
import type { SessionWriter } from "../../src/core/store.ts";
import { tempDir } from "../helpers/cli.ts";
import { connectAgent, type AgentClient } from "../helpers/agent.ts";
import { call, connectInMemory, sessionOptions, type Answer } from "../helpers/harness.ts";
import { storeWithParkedWaits } from "../helpers/store.ts";

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

  test("a line already written past the cursor answers at once; bad patterns are one-line invalid_argument", async () => {
    await open("early");
    await write("early", "error: disk full\nmore\n");
    const found = await agent.call("derun_wait_output", { session_id: "early", cursor: "0", until: "^error: (.+)$", timeout_ms: 60000 });
    expect(found.result).toMatchObject({ match: "error: disk full", next_cursor: "17" });
    for (const until of ["(unclosed", "(?=x)(a+)+$", ""]) {
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
    const found = await agent.call("derun_wait_output", {
      session_id: "long",
      cursor: "0",
      until: "^start",
      max_bytes: 101,
      timeout_ms: 10000,
    });
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
      expect(refused.text).toBe(
        `until answers a line of the text view: leave out ${Object.entries(mode).map(([k, v]) => `${k} "${v}"`)[0]}`,
      );
    }
    const text = await agent.call("derun_wait_output", {
      session_id: "long",
      cursor: "0",
      until: "start",
      view: "text",
      encoding: "text",
      max_bytes: 4,
    });
    expect(text.result.chunks[0].data).toBe("star");
    await writer[Symbol.asyncDispose]();
  });
});

describe("derun_wait_output until, not before the match", () => {
  /**
   * A server in this process on a store whose waits say when they park; `write` appends, then waits for the call's next park or its answer.
   */
  async function parking(id: string) {
    let parks!: () => number;
    let parked!: (count: number) => Promise<void>;
    const h = await connectInMemory((root) => {
      const watched = storeWithParkedWaits(root);
      ({ parks, parked } = watched);
      return watched.store;
    });
    const writer = await h.store.create(sessionOptions(id));
    await writer.started({ pid: process.pid, transportMode: "pipe", ttyAttached: false });
    let written = 0;
    /** "parked" when the call read up to here and waits again, "answered" when it answered instead. */
    const next = async (answer: Promise<Answer>, before: number) =>
      Promise.race([parked(before + 1).then(() => "parked"), answer.then(() => "answered")]);
    return {
      h,
      writer,
      get written() {
        return written;
      },
      start(args: Record<string, unknown>) {
        const before = parks();
        const answer = call(h.client, "derun_wait_output", { session_id: id, ...args });
        return { answer, first: next(answer, before) };
      },
      /** Append `text` (committed once append returns); resolves with what the call did next. */
      async write(text: string, answer?: Promise<Answer>) {
        const before = parks();
        writer.append("stdout", utf8(text));
        written += utf8(text).length;
        return answer ? next(answer, before) : undefined;
      },
      async [Symbol.asyncDispose]() {
        await writer[Symbol.asyncDispose]();
        await h[Symbol.asyncDispose]();
      },
    };
  }

  test("returns once the matching line is written, not before: a line split over records, non-matching lines first", async () => {
    await using s = await parking("server");
    await s.write("booting\n");
    const wait = s.start({ cursor: "0", until: "listening on port \\d+", timeout_ms: 60000 });
    expect(await wait.first).toBe("parked");
    expect(await s.write("\x1b[2mloading config\x1b[0m\n", wait.answer)).toBe("parked");
    expect(await s.write("listen", wait.answer)).toBe("parked");
    expect(await s.write("ing on port ", wait.answer)).toBe("parked");
    const before = s.written;
    expect(await s.write("8080\nready for requests\n", wait.answer)).toBe("answered");
    const { result, text } = await wait.answer;
    expect(result).toMatchObject({ match: "listening on port 8080", timed_out: false, eof: false, session_state: "running" });
    expect(result.chunks).toHaveLength(1);
    expect(result.chunks[0]).toMatchObject({ channel: "stdout", data: "listening on port 8080", end_cursor: String(before + 5) });
    expect(result.next_cursor).toBe(String(before + 5));
    expect(text.split("\n")[0]).toContain('matched "listening on port 8080"');
    // The next wait goes on after the matching line.
    const next = await call(s.h.client, "derun_wait_output", {
      session_id: "server",
      cursor: result.next_cursor,
      until: "^ready",
      timeout_ms: 10000,
    });
    expect(next.result.match).toBe("ready");
  });

  test("a prompt matches while it is the line being written; colours do not get in the way", async () => {
    await using s = await parking("prompt");
    await s.write("connecting\n");
    const wait = s.start({ cursor: "0", until: "^Password: $", timeout_ms: 60000 });
    expect(await wait.first).toBe("parked");
    expect(await s.write("\x1b[1mPass", wait.answer)).toBe("parked");
    expect(await s.write("word:\x1b[0m ", wait.answer)).toBe("answered");
    const { result } = await wait.answer;
    expect(result).toMatchObject({ match: "Password: ", next_cursor: String(s.written), at_tail: true, timed_out: false });
  });

  test("the session ends without a match: eof, no match; a timeout: timed_out at the committed end", async () => {
    await using s = await parking("ends");
    await s.write("step 1\n");
    const timedOut = await call(s.h.client, "derun_wait_output", {
      session_id: "ends",
      cursor: "0",
      until: "never printed",
      timeout_ms: 300,
    });
    expect(timedOut.result).toMatchObject({ timed_out: true, eof: false, next_cursor: "7", chunks: [] });
    expect(timedOut.result.match).toBeUndefined();
    const wait = s.start({ cursor: "7", until: "never printed", timeout_ms: 60000 });
    expect(await wait.first).toBe("parked");
    expect(await s.write("step 2\n", wait.answer)).toBe("parked");
    await s.writer.finalize({ state: "exited", exit_code: 3 });
    const { result } = await wait.answer;
    expect(result).toMatchObject({ eof: true, timed_out: false, session_state: "exited", next_cursor: "14", chunks: [] });
  });
});
