/**
 * Fields taken from the recorded program or the file system (the working directory, the command,
 * directory names under sessions/, ids a user typed) never reach a terminal or a model raw: every
 * CLI line and every MCP answer's text shows their control characters as `\xNN`.
 */
import { expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { runDerun, tempDir, text } from "../helpers/cli.ts";
import { call } from "../helpers/harness.ts";
import { connectStdio } from "../helpers/stdio-client.ts";

const HOSTILE = "\x1b]0;PWNED\x07\x1b[2J";
/** Any control character but the line feed ending each line. */
const RAW_CONTROL = /[\x00-\x09\x0b-\x1f\x7f\x9b]/;

const expectClean = (what: string, out: string) => {
  const bad = RAW_CONTROL.exec(out);
  expect({ what, raw: bad === null ? null : JSON.stringify(out.slice(Math.max(0, bad.index - 20), bad.index + 20)) }).toEqual({
    what,
    raw: null,
  });
};

test("a hostile working directory, command and directory name are escaped in every CLI line and MCP answer", async () => {
  using root = tempDir();
  using work = tempDir();
  const cwd = path.join(work.path, `dir${HOSTILE}`);
  fs.mkdirSync(cwd);
  const recorded = await runDerun(["run", "--session-id", "esc", "--", "printf", `%s${HOSTILE}`, "x"], { stateRoot: root.path, cwd });
  expect(recorded.exitCode).toBe(0);
  // A stray directory under sessions/ whose name holds the sequence, expired long ago.
  const stray = path.join(root.path, "sessions", `stray${HOSTILE}`);
  fs.mkdirSync(stray);
  const old = new Date(Date.now() - 3 * 24 * 3_600_000);
  fs.utimesSync(stray, old, old);

  for (const args of [
    ["show", "esc"],
    ["ls"],
    ["ls", "--commands"],
    ["gc", "--dry-run"],
    ["rm", `nope${HOSTILE}`],
    ["cat", `nope${HOSTILE}`],
  ]) {
    const done = await runDerun(args, { stateRoot: root.path });
    expectClean(`derun ${args[0]} stdout`, text(done.stdout));
    expectClean(`derun ${args[0]} stderr`, text(done.stderr));
  }
  const show = text((await runDerun(["show", "esc"], { stateRoot: root.path })).stdout);
  expect(show).toContain("dir\\x1b]0;PWNED\\x07\\x1b[2J");

  await using client = await connectStdio(root.path);
  const got = await call(client, "derun_get_session", { session_id: "esc" });
  expect(got.isError).toBe(false);
  expectClean("derun_get_session", got.text);
  expect(got.text).toContain("dir\\x1b]0;PWNED\\x07\\x1b[2J");
  // The structured answer keeps the exact value: it is data, JSON-escaped on the wire.
  expect(got.result.session.working_directory).toBe(cwd);
  for (const [tool, args] of [
    ["derun_list_sessions", {}],
    ["derun_read_text", { session_id: "esc" }],
    ["derun_list_commands", {}],
    ["derun_get_session", { session_id: `nope${HOSTILE}` }],
  ] as const) {
    expectClean(tool, (await call(client, tool, args)).text);
  }
}, 60_000);
