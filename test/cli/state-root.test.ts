/** `--state-root` wherever DERUN_STATE_ROOT applies, and the flag wins over the variable. */
import { expect, test } from "bun:test";
import { runDerun, tempDir, text } from "../helpers/cli.ts";
import { sessionIds } from "../helpers/session.ts";

test("run records under --state-root, not DERUN_STATE_ROOT; ls, show and cat read there", async () => {
  using fromEnv = tempDir();
  using fromFlag = tempDir();
  const done = await runDerun(["run", "--state-root", fromFlag.path, "--session-id", "here", "--", "echo", "hi"], {
    stateRoot: fromEnv.path,
  });
  expect([done.exitCode, text(done.stdout)]).toEqual([0, "hi\n"]);
  expect(sessionIds(fromFlag.path)).toEqual(["here"]);
  expect(sessionIds(fromEnv.path)).toEqual([]);
  expect(text((await runDerun(["ls", "--ids", `--state-root=${fromFlag.path}`], { stateRoot: fromEnv.path })).stdout)).toBe("here\n");
  expect(text((await runDerun(["cat", "last", "--state-root", fromFlag.path], { stateRoot: fromEnv.path })).stdout)).toBe("hi\n");
  const fromEnvOnly = await runDerun(["show", "last"], { stateRoot: fromEnv.path });
  expect([fromEnvOnly.exitCode, text(fromEnvOnly.stderr)]).toEqual([1, "derun: session not found: last (0 sessions are recorded)\n"]);
});

test("a state root that is a file: the reading commands say so (2), not that no session is recorded", async () => {
  using dir = tempDir();
  const file = `${dir.path}/not-a-dir`;
  await Bun.write(file, "");
  // The file itself, or a path under it.
  for (const root of [file, `${file}/below`])
    for (const args of [["ls"], ["cat", "last"], ["grep", "x"]]) {
      const done = await runDerun([...args, "--state-root", root], { stateRoot: dir.path });
      expect([args[0], done.exitCode, text(done.stderr).split("\n")[0]]).toEqual([
        args[0],
        2,
        `derun: state root ${JSON.stringify(root)} is not a directory`,
      ]);
    }
});

test("a state root that is a file: `derun mcp` refuses to start (2); `derun run` runs the command, says it is not recorded", async () => {
  using dir = tempDir();
  const file = `${dir.path}/not-a-dir`;
  await Bun.write(file, "kept");
  for (const root of [file, `${file}/below`]) {
    const mcp = await runDerun(["mcp", "--state-root", root], { stateRoot: dir.path });
    expect([mcp.exitCode, text(mcp.stdout), text(mcp.stderr).split("\n")[0]]).toEqual([
      2,
      "",
      `derun: state root ${JSON.stringify(root)} is not a directory`,
    ]);
    const run = await runDerun(["run", "--state-root", root, "--", "echo", "hi"], { stateRoot: dir.path });
    expect([run.exitCode, text(run.stdout), text(run.stderr)]).toEqual([
      0,
      "hi\n",
      `derun: this run was not recorded: state root ${JSON.stringify(root)} is not a directory\n`,
    ]);
  }
  expect(await Bun.file(file).text()).toBe("kept");
});
