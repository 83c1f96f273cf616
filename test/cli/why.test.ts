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

test("derun wait: a session ending wakes it (exit 0); nothing ending times out (exit 1)", async () => {
  using state = tempDir();
  const waiting = runDerun(["wait", "--failed", "--timeout", "60000"], { stateRoot: state.path });
  // Whether the wait was armed before this run or not, its end is seen: a wait armed after it would time out.
  for (let i = 0; ; i++) {
    await runDerun(["run", "--session-id", `fails-${i}`, "--", "sh", "-c", "echo broke; exit 5"], { stateRoot: state.path });
    const done = await Promise.race([waiting.then(() => true), Bun.sleep(500).then(() => false)]);
    if (done) break;
  }
  const woke = await waiting;
  expect(woke.exitCode).toBe(0);
  expect(text(woke.stdout)).toMatch(/^session fails-\d+: exited 5 · sh -c "echo broke; exit 5" · waited \d+ ms · text lines 1-1 of 1\nbroke\n$/);
  const none = await runDerun(["wait", "--timeout", "200"], { stateRoot: state.path });
  expect([none.exitCode, text(none.stdout)]).toEqual([1, expect.stringMatching(/^nothing ended in \d+ ms \(timed out\)\n$/)]);
});
