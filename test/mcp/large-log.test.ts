/**
 * A large synthetic log (~100 MB here; bench/agent-views.ts runs the same at 1 GB), written with the
 * store's own writer into a temporary state root and read over stdio: one derun_search_output call
 * finds the one error line, in an answer under 2 KB; derun_read_text's default answer is the last
 * lines within its budget, numbered as the whole log numbers them; a range near the error reads it.
 * The server streams: neither call holds the log in memory.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openFileStore } from "../../src/file-store/index.ts";
import { tempDir } from "../helpers/cli.ts";
import { connectAgent, type AgentClient } from "../helpers/agent.ts";
import { sessionOptions } from "../helpers/harness.ts";
import { writeSyntheticLog, type SyntheticLog } from "../helpers/synthetic-log.ts";

const MB = Number(process.env.DERUN_TEST_LARGE_LOG_MB ?? 100);
const root = tempDir("derun-large-log-");
let agent: AgentClient;
let log: SyntheticLog;

beforeAll(async () => {
  const store = openFileStore({ root: root.path });
  await using writer = await store.create(sessionOptions("big"));
  log = writeSyntheticLog(writer, MB * 1e6);
  await writer.finalize({ state: "exited", exit_code: 1 });
  agent = await connectAgent(root.path);
}, 120_000);

afterAll(async () => {
  await agent?.[Symbol.asyncDispose]();
  root[Symbol.dispose](); // hundreds of MB: gone at once
});

describe(`a ${MB} MB log`, () => {
  test("one search call finds the one error line, in an answer under 2 KB, with its line number", async () => {
    const found = await agent.call("derun_search_output", { session_id: "big", pattern: "ERROR db.pool", literal: true });
    expect(found.bytes).toBeLessThan(2048);
    expect(found.text.split("\n")).toEqual([
      '"ERROR db.pool": 1 matching line · 1 session searched',
      `== session big: exited 1 · sh -c test · 1 of ${log.lines} lines match`,
      `${log.errorLine}:${log.errorText}`,
    ]);
    const regex = await agent.call("derun_search_output", {
      session_id: "big",
      pattern: "error db\\.pool .*ECONNREFUSED",
      ignore_case: true,
      context: 1,
    });
    expect(regex.bytes).toBeLessThan(2048);
    expect(regex.text).toContain(`\n${log.errorLine}:${log.errorText}\n${log.errorLine + 1}-`);
  }, 120_000);

  test("read_text answers the last lines within its budget, numbered in the whole log; a range reads the error line", async () => {
    const tail = await agent.call("derun_read_text", { session_id: "big" });
    const [header, ...lines] = tail.text.split("\n");
    expect(header).toMatch(
      new RegExp(`^session big: exited 1 · sh -c test · text · lines (\\d+)-${log.lines} of ${log.lines} · bytes \\d+-${log.bytes}$`),
    );
    expect(lines.at(-1)).toBe("shutdown complete");
    expect(lines.join("\n").length).toBeLessThanOrEqual(16000);
    const range = await agent.call("derun_read_text", { session_id: "big", from_line: log.errorLine - 1, head_lines: 3 });
    expect(range.text.split("\n").slice(1)[1]).toBe(log.errorText);
    expect(range.text.split("\n")[0]).toContain(`lines ${log.errorLine - 1}-${log.errorLine + 1} of ${log.lines}`);
  }, 120_000);
});
