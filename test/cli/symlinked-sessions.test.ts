/**
 * A `sessions/` that is a symlink (out of the state root) is refused by every command alike: `rm`
 * deletes nothing through it, and `ls` and MCP's list say why instead of "no sessions".
 */
import { expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { runDerun, tempDir, text } from "../helpers/cli.ts";
import { call } from "../helpers/harness.ts";
import { connectStdio } from "../helpers/stdio-client.ts";

test("through a symlinked sessions/: rm removes nothing, ls and MCP list give the readers' error", async () => {
  using root = tempDir();
  using outside = tempDir();
  using elsewhere = tempDir();
  expect((await runDerun(["run", "--session-id", "planted", "--", "printf", "x"], { stateRoot: elsewhere.path })).exitCode).toBe(0);
  fs.cpSync(path.join(elsewhere.path, "sessions", "planted"), path.join(outside.path, "planted"), { recursive: true });
  fs.symlinkSync(outside.path, path.join(root.path, "sessions"));

  const reader = await runDerun(["cat", "planted"], { stateRoot: root.path });
  expect(reader.exitCode).toBe(1);
  const refusal = text(reader.stderr);
  expect(refusal).toMatch(/^derun: unsafe path: [^\n]*sessions is a symlink[^\n]*\n$/);

  for (const args of [["rm", "planted"], ["rm", "--force", "planted"], ["ls"], ["ls", "--commands"]]) {
    const done = await runDerun(args, { stateRoot: root.path });
    expect({ args, exit: done.exitCode, stderr: text(done.stderr), stdout: text(done.stdout) }).toEqual({
      args,
      exit: 1,
      stderr: refusal,
      stdout: "",
    });
  }
  expect(fs.readdirSync(path.join(outside.path, "planted")).sort()).toEqual(
    fs.readdirSync(path.join(elsewhere.path, "sessions", "planted")).sort(),
  );

  await using client = await connectStdio(root.path);
  for (const tool of ["derun_list_sessions", "derun_list_commands"]) {
    const listed = await call(client, tool, {});
    expect({ tool, isError: listed.isError, text: listed.text }).toEqual({
      tool,
      isError: true,
      text: refusal.slice("derun: ".length, -1),
    });
  }
}, 60_000);
