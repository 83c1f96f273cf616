/** `derun why`: the newest failure explained as derun_last_failure explains it, with grep's exit codes. */
import { expect, test } from "bun:test";
import { runDerun, tempDir, text } from "../helpers/cli.ts";

test("derun why: none recorded (exit 1), the newest failure (exit 0), a session named, bad usage (exit 2)", async () => {
  using state = tempDir();
  const none = await runDerun(["why"], { stateRoot: state.path });
  expect([none.exitCode, text(none.stdout), text(none.stderr)]).toEqual([1, "", expect.stringContaining("no failure recorded")]);

  await runDerun(["run", "--session-id", "bad", "--", "sh", "-c", "echo working; echo 'fatal: not a git repository'; echo more; exit 128"], { stateRoot: state.path });
  await runDerun(["run", "--session-id", "good", "--", "sh", "-c", "echo fine"], { stateRoot: state.path });
  const why = await runDerun(["why"], { stateRoot: state.path });
  expect(why.exitCode).toBe(0);
  expect(text(why.stdout).split("\n")).toEqual([
    expect.stringMatching(/^session bad: exited 128 · sh -c "echo working; echo 'fatal: not a git repository'; echo more; exit 128" · ran .* · 1 failure line in 3 lines$/),
    expect.stringMatching(/^\d-working$/),
    expect.stringMatching(/^\d:fatal: not a git repository$/),
    expect.stringMatching(/^\d-more$/),
    "",
  ]);
  const json = await runDerun(["why", "bad", "--json"], { stateRoot: state.path });
  expect(JSON.parse(text(json.stdout))).toMatchObject({ session_id: "bad", exit_code: 128, failure_lines: 1, total_lines: 3 });
  // A session named is explained whatever its end.
  const named = await runDerun(["why", "good"], { stateRoot: state.path });
  expect(text(named.stdout)).toStartWith("session good: exited 0 · ");

  const usage = await runDerun(["why", "--command", "1"], { stateRoot: state.path });
  expect([usage.exitCode, text(usage.stderr)]).toEqual([2, expect.stringContaining("--command needs the session")]);
});
