/**
 * Tool errors are one clear, bounded line (quoting at most ~100 characters of what was sent), and
 * numbers that no integer argument can hold are refused with one message each, never clamped.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { runDerun, tempDir } from "../helpers/cli.ts";
import { call } from "../helpers/harness.ts";
import { connectStdio } from "../helpers/stdio-client.ts";

const root = tempDir("derun-bounded-");
let client: Client & AsyncDisposable;
const TIMEOUT = 30_000;

beforeAll(async () => {
  const done = await runDerun(["run", "--session-id", "done", "--", "printf", "hello"], { stateRoot: root.path });
  expect(done.exitCode).toBe(0);
  client = await connectStdio(root.path);
}, TIMEOUT);
afterAll(async () => {
  await client[Symbol.asyncDispose]();
  root[Symbol.dispose]();
});

/** An error answer: one line, short, and the same text in content and structuredContent. */
async function refusal(tool: string, args: Record<string, unknown>): Promise<string> {
  const answer = await call(client, tool, args);
  expect(answer.isError).toBe(true);
  expect(answer.result.error.code).toBe(answer.result.error.code === "session_not_found" ? "session_not_found" : "invalid_argument");
  expect(answer.result.error.message).toBe(answer.text);
  expect(answer.text).not.toContain("\n");
  expect(answer.text.length).toBeLessThanOrEqual(250);
  return answer.text;
}

describe("bounded error messages", () => {
  const huge = "A".repeat(2 * 1024 * 1024);

  test(
    "a 2 MB session_id is quoted, not echoed",
    async () => {
      for (const tool of ["derun_get_session", "derun_read_output"]) {
        const text = await refusal(tool, { session_id: huge });
        expect(text).toStartWith("session not found: ");
      }
      expect(await refusal("derun_wait_output", { session_id: huge, cursor: "0", timeout_ms: 1 })).toStartWith("session not found: ");
    },
    TIMEOUT,
  );

  test(
    "a 2 MB cursor or tool name is quoted, not echoed",
    async () => {
      expect(await refusal("derun_read_output", { session_id: "done", cursor: `x${huge}` })).toContain("cursor");
      const unknown = await client.callTool({ name: `tool-${huge}`, arguments: {} });
      const text = (unknown.content as { text: string }[])[0]!.text;
      expect(unknown.isError).toBe(true);
      expect(text.length).toBeLessThanOrEqual(250);
    },
    TIMEOUT,
  );

  test(
    "a bad encoding names the allowed values, not the parameter's description",
    async () => {
      const text = await refusal("derun_read_output", { session_id: "done", encoding: "utf16" });
      expect(text).toContain("encoding");
      expect(text).toContain('"text"');
      expect(text).toContain('"base64"');
      expect(text).not.toContain("chunks carry");
    },
    TIMEOUT,
  );
});

describe("numbers no argument can hold", () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ["derun_list_sessions", { limit: 1e40 }],
    ["derun_list_sessions", { limit: -1.5 }],
    ["derun_list_sessions", { limit: "0x10" }],
    ["derun_read_output", { session_id: "done", max_bytes: 1e40 }],
    ["derun_read_output", { session_id: "done", max_bytes: -1.5 }],
    ["derun_read_output", { session_id: "done", max_bytes: "0x10" }],
    ["derun_read_output", { session_id: "done", cursor: "0x10" }],
    ["derun_read_output", { session_id: "done", cursor: "1e3" }],
    ["derun_read_output", { session_id: "done", view: "screen" }],
    ["derun_read_text", { session_id: "done", view: "nope" }],
    ["derun_wait_output", { session_id: "done", cursor: "0", timeout_ms: 1e40 }],
    ["derun_wait_output", { session_id: "done", cursor: "0", timeout_ms: -1.5 }],
    ["derun_wait_output", { session_id: "done", cursor: "0", timeout_ms: "0x10" }],
  ];
  for (const [tool, args] of cases) {
    test(
      `${tool} ${JSON.stringify(args)}: one clear message`,
      async () => {
        const text = await refusal(tool, args);
        const [name] = Object.entries(args).find(([key]) => key !== "session_id" && !(key === "cursor" && args.cursor === "0"))!;
        expect(text).toStartWith(`${name} must be`);
        // One message, said once: no "must be...; ◦ ...; ◦ ..." list of duplicates.
        expect(text).not.toContain("◦");
        expect(text.split("must be").length).toBe(2);
      },
      TIMEOUT,
    );
  }
});
