/**
 * `derun why` and `derun wait`: the newest failure explained as derun_last_failure explains it, and the wait for the next end, with grep's
 * exit codes.
 */
import { expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { derunArgv, derunEnv, runDerun, tempDir, text } from "../helpers/cli.ts";
import { watched } from "../helpers/inotify.ts";

test("derun why: none recorded (exit 1), the newest failure (exit 0), a session named, bad usage (exit 2)", async () => {
  using state = tempDir();
  const none = await runDerun(["why"], { stateRoot: state.path });
  expect([none.exitCode, text(none.stdout), text(none.stderr)]).toEqual([1, "", expect.stringContaining("no failure recorded")]);

  await runDerun(
    ["run", "--session-id", "bad", "--", "sh", "-c", "echo working; echo 'fatal: not a git repository'; echo more; exit 128"],
    { stateRoot: state.path },
  );
  await runDerun(["run", "--session-id", "good", "--", "sh", "-c", "echo fine"], { stateRoot: state.path });
  const why = await runDerun(["why"], { stateRoot: state.path });
  expect(why.exitCode).toBe(0);
  expect(text(why.stdout).split("\n")).toEqual([
    expect.stringMatching(
      /^session bad: exited 128 · sh -c "echo working; echo 'fatal: not a git repository'; echo more; exit 128" · ran .* · 1 failure line in 3 lines$/,
    ),
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

test.skipIf(process.platform !== "linux")("derun wait: a session ending wakes it (exit 0); nothing ending times out (exit 1)", async () => {
  using state = tempDir();
  mkdirSync(join(state.path, "sessions"), { recursive: true, mode: 0o700 });
  const waiting = Bun.spawn([...derunArgv(), "wait", "--failed", "--timeout", "60000"], {
    env: derunEnv(state.path),
    stdout: "pipe",
    stderr: "pipe",
  });
  await watched(() => waiting.pid, join(state.path, "sessions"));
  await runDerun(["run", "--session-id", "fine", "--", "sh", "-c", "echo ok"], { stateRoot: state.path });
  await runDerun(["run", "--session-id", "fails", "--", "sh", "-c", "echo broke; exit 5"], { stateRoot: state.path });
  const [stdout, code] = await Promise.all([new Response(waiting.stdout).text(), waiting.exited]);
  expect(code).toBe(0);
  expect(stdout).toMatch(/^session fails: exited 5 · sh -c "echo broke; exit 5" · waited \d+ ms · text lines 1-1 of 1\nbroke\n$/);
  const none = await runDerun(["wait", "--timeout", "200"], { stateRoot: state.path });
  expect([none.exitCode, text(none.stdout)]).toEqual([1, expect.stringMatching(/^nothing ended in \d+ ms \(timed out\)\n$/)]);
});
