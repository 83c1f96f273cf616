/**
 * `derun mcp --scope <dir>` (issue 39.4): the agent sees only sessions that worked under that
 * directory; list and search say how many others there are, never which; any other id is not
 * found. A bad --scope is a usage error before the server starts. SDK client over real stdio.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { runDerun, tempDir, text } from "../helpers/cli.ts";
import { call } from "./_harness.ts";
import { connectStdio } from "./_stdio-client.ts";

const state = tempDir("derun-scope-state-");
const work = tempDir("derun-scope-work-");
const clientA = path.join(work.path, "client-a");
const clientB = path.join(work.path, "client-b");

beforeAll(async () => {
  for (const dir of [clientA, path.join(clientA, "sub"), clientB, `${clientA}-other`]) fs.mkdirSync(dir, { recursive: true });
  for (const [id, cwd] of [
    ["a-top", clientA],
    ["a-sub", path.join(clientA, "sub")],
    ["b", clientB],
    ["a-prefix", `${clientA}-other`], // a sibling whose name starts alike is outside
  ] as const) {
    const done = await runDerun(["run", "--session-id", id, "--", "echo", `words of ${id}`], { stateRoot: state.path, cwd });
    expect(done.exitCode).toBe(0);
  }
});
afterAll(() => {
  state[Symbol.dispose]();
  work[Symbol.dispose]();
});

test("only the scope's sessions; list and search count the others without naming them", async () => {
  await using client = await connectStdio(state.path, ["--scope", clientA]);
  const list = await call(client, "derun_list_sessions");
  expect(list.result.sessions.map((s: { session_id: string }) => s.session_id).sort()).toEqual(["a-sub", "a-top"]);
  expect(list.result.outside_scope).toBe(2);
  expect(list.text.split("\n")[0]).toContain("2 sessions outside this server's scope (not shown)");
  expect(list.text).not.toMatch(/\bb\b|a-prefix/);
  const search = await call(client, "derun_search_output", { pattern: "words of" });
  expect(search.text.split("\n")[0]).toContain("2 sessions outside this server's scope (not shown)");
  expect(search.text).toContain("words of a-top");
  expect(search.text).not.toMatch(/words of (b|a-prefix)/);
  for (const id of ["b", "a-prefix"]) {
    const read = await call(client, "derun_read_text", { session_id: id });
    expect([read.isError, read.text]).toEqual([true, `session not found: ${id}`]);
  }
}, 60_000);

test("without --scope nothing is counted as outside; a bad --scope is refused at start (2)", async () => {
  await using client = await connectStdio(state.path);
  const list = await call(client, "derun_list_sessions");
  expect([list.result.total, list.result.outside_scope]).toEqual([4, undefined]);
  const bad = await runDerun(["mcp", "--scope", path.join(work.path, "missing")], { stateRoot: state.path, stdin: new Uint8Array() });
  expect([bad.exitCode, text(bad.stdout)]).toEqual([2, ""]);
  expect(text(bad.stderr)).toMatch(/^derun: --scope ".*missing" is not a directory\n/);
});
