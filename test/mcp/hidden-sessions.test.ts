/**
 * `derun hide` (issue 39.3): a hidden session is, for `derun mcp`, a session that does not exist:
 * not listed, not read, searched, waited on or offered as a resource (the server offers no
 * completion), and every lookup
 * of its id answers exactly as for an id never recorded. The person's own commands still read it,
 * and `derun ls` marks it. `derun unhide` gives it back. Driven with the SDK's client over stdio.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { runDerun, tempDir, text } from "../helpers/cli.ts";
import { call } from "../helpers/harness.ts";
import { connectStdio } from "../helpers/stdio-client.ts";

const state = tempDir("derun-hidden-");
const MARK = "PRIVATE_hidden_marker_42";
const derun = (...args: string[]) => runDerun(args, { stateRoot: state.path });

beforeAll(async () => {
  expect((await derun("run", "--session-id", "open", "--", "echo", "public words")).exitCode).toBe(0);
  expect((await derun("run", "--session-id", "secret", "--", "sh", "-c", `echo ${MARK}; exit 3`)).exitCode).toBe(3);
  const hidden = await derun("hide", "last");
  expect([hidden.exitCode, text(hidden.stdout).split(":")[0]]).toEqual([0, "secret"]);
});
afterAll(() => state[Symbol.dispose]());

/** Every way an agent can reach a session by id, with the answer's error text (or its text when not an error). */
async function reachById(client: Client, id: string): Promise<string[]> {
  const answers: string[] = [];
  for (const [tool, args] of [
    ["derun_get_session", { session_id: id }],
    ["derun_read_output", { session_id: id }],
    ["derun_read_text", { session_id: id }],
    ["derun_wait_output", { session_id: id, cursor: "0", timeout_ms: 100 }],
    ["derun_search_output", { session_id: id, pattern: "x" }],
    ["derun_list_commands", { session_id: id }],
    ["derun_last_failure", { session_id: id }],
  ] as const) {
    const a = await call(client, tool, args);
    answers.push(`${tool} ${a.isError} ${a.text.replaceAll(id, "<id>")}`);
  }
  const resource = await client.readResource({ uri: `derun://session/${id}` }).then(
    (r) => JSON.stringify(r),
    (e: Error) => e.message.replaceAll(id, "<id>"),
  );
  answers.push(`resource ${resource}`);
  return answers;
}

describe("a hidden session, for derun mcp", () => {
  test("does not exist: every tool and resource answers as for an id never recorded", async () => {
    await using client = await connectStdio(state.path);
    const list = await call(client, "derun_list_sessions");
    expect(list.result.sessions.map((s: { session_id: string }) => s.session_id)).toEqual(["open"]);
    expect(list.result.total).toBe(1);
    expect(list.text).not.toContain("secret");
    // The same answers, word for word, as for a session that was never there.
    expect(await reachById(client, "secret")).toEqual(await reachById(client, "never"));
    expect((await call(client, "derun_read_output", { session_id: "secret" })).text).toBe("session not found: secret");
    // Searching everything, waiting for a failure, the newest session and failure, resources.
    const search = await call(client, "derun_search_output", { pattern: MARK });
    // (The answer quotes the pattern itself: the marker may appear there, and only there.)
    expect([search.isError, search.text]).toEqual([false, `"${MARK}": 0 matching lines · 1 of 1 session searched (newest first)`]);
    const failure = await call(client, "derun_last_failure", {});
    expect(failure.text).not.toContain(MARK);
    expect(failure.text).not.toContain("secret");
    const wait = await call(client, "derun_wait_command", { failed: true, timeout_ms: 200 });
    expect(wait.text).not.toContain("secret");
    const resources = JSON.stringify(await client.listResources());
    expect(resources).not.toContain("secret");
    const last = JSON.stringify(await client.readResource({ uri: "derun://last" }));
    expect(last).toContain("public words");
    expect(last).not.toContain(MARK);
    const lastFailure = await client.readResource({ uri: "derun://last-failure" }).then(JSON.stringify, (e: Error) => e.message);
    expect(lastFailure).not.toContain(MARK);
    // Completion of a session id offers the visible sessions only.
    const offered = await client.complete({
      ref: { type: "ref/resource", uri: "derun://session/{id}" },
      argument: { name: "id", value: "" },
    });
    expect(offered.completion.values).toContain("open");
    expect(offered.completion.values).not.toContain("secret");
  }, 60_000);

  test("the person's own commands read it, ls marks it; unhide gives it back to agents", async () => {
    expect(text((await derun("cat", "secret")).stdout)).toBe(`${MARK}\n`);
    const ls = text((await derun("ls")).stdout);
    expect(ls).toMatch(/secret\s+exited \(hidden\)/);
    expect(ls).toMatch(/open\s+exited\s/);
    expect(text((await derun("show", "secret")).stdout)).toContain("hidden");
    expect(JSON.parse(text((await derun("ls", "--json")).stdout)).sessions[0]).toMatchObject({ session_id: "secret", hidden: true });
    const grep = await derun("grep", MARK);
    expect(grep.exitCode).toBe(0);

    expect((await derun("unhide", "secret")).exitCode).toBe(0);
    expect(fs.existsSync(path.join(state.path, "sessions", "secret", "hidden.json"))).toBe(false);
    await using client = await connectStdio(state.path);
    const read = await call(client, "derun_read_text", { session_id: "secret" });
    expect([read.isError, read.text.includes(MARK)]).toEqual([false, true]);
    expect((await derun("hide", "secret")).exitCode).toBe(0); // hidden again for the next test file's reader
  }, 60_000);

  test("hide of a session that is not there: exit 1, nothing written", async () => {
    const done = await derun("hide", "nope");
    expect([done.exitCode, text(done.stderr)]).toEqual([1, expect.stringContaining("session not found: nope")]);
    expect(fs.existsSync(path.join(state.path, "sessions", "nope"))).toBe(false);
  });
});
