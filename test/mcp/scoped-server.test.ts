/**
 * `derun mcp --scope <dir>` (issue 39.4): the agent sees only sessions that worked under that
 * directory; list and search say how many others there are, never which; any other id is not
 * found; a recorded shell counts once a command of it ran there. A bad --scope is a usage error
 * before the server starts. SDK client over real stdio; the shell in tmux.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { runDerun, tempDir, text } from "../helpers/cli.ts";
import { hasTmux } from "../helpers/tmux.ts";
import { recordedPane } from "../helpers/recorded-pane.ts";
import { call } from "../helpers/harness.ts";
import { connectStdio } from "../helpers/stdio-client.ts";

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

describe.skipIf(!hasTmux)("a recorded shell in the scope", () => {
  test("is served when one of its commands ran under the scope, though it started elsewhere", async () => {
    using shellState = tempDir("derun-scope-shell-");
    await using shell = await recordedPane("bash", shellState.path, "sh", undefined);
    await shell.type("printf '%s-%s\\n' at-home 1", "at-home-1");
    expect(
      (await runDerun(["run", "--session-id", "home-run", "--", "true"], { stateRoot: shellState.path, cwd: shell.home })).exitCode,
    ).toBe(0);
    const scope = path.join(shell.home, "secret"); // any directory under HOME: the helper makes this one
    await using before = await connectStdio(shellState.path, ["--scope", scope]);
    expect((await call(before, "derun_list_sessions")).result).toMatchObject({ total: 0, outside_scope: 2 });
    await shell.type("cd ~/secret && printf '%s-%s\\n' in-scope 2", "in-scope-2");
    await shell.exit();
    await using after = await connectStdio(shellState.path, ["--scope", scope]);
    const list = await call(after, "derun_list_sessions");
    expect(list.result.sessions.map((s: { session_id: string }) => s.session_id)).toEqual(["sh"]);
    expect(list.result.outside_scope).toBe(1);
  }, 60_000);
});

test("derun mcp config <client> --scope prints the scope, absolute here, as given for another machine", async () => {
  using state = tempDir();
  const local = await runDerun(["mcp", "config", "codex", "--scope", "."], { stateRoot: state.path, cwd: clientA });
  expect(local.exitCode).toBe(0);
  expect(text(local.stdout)).toContain(`"mcp", "--scope", ${JSON.stringify(clientA)}]`);
  const remote = await runDerun(["mcp", "config", "claude-code", "--ssh", "box", "--scope", "~/w"], { stateRoot: state.path });
  expect(text(remote.stdout)).toContain("'derun mcp --scope ~/w'");
});
