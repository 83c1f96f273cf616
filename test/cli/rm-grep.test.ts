/**
 * `derun rm --grep <pattern> [--dry-run]` (issue 39.5): every session whose output or command line
 * matches, as recorded (a secret masked on reading is still found), is listed (--dry-run) or removed;
 * the others stay. Bad uses are usage errors (2) that remove nothing.
 */
import { expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { runDerun, tempDir, text } from "../helpers/cli.ts";

const TOKEN = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A";

test("rm --grep: output or command line, matched unmasked; --dry-run removes nothing", async () => {
  using state = tempDir();
  const derun = (...args: string[]) => runDerun(args, { stateRoot: state.path });
  expect((await derun("run", "--session-id", "out", "--", "echo", `token ${TOKEN}`)).exitCode).toBe(0);
  expect((await derun("run", "--session-id", "argv", "--", "sh", "-c", `: ${TOKEN}; echo quiet`)).exitCode).toBe(0);
  expect((await derun("run", "--session-id", "clean", "--", "echo", "nothing here")).exitCode).toBe(0);
  // Masked on reading: the token is not in what cat shows, but rm --grep finds it.
  expect(text((await derun("cat", "out")).stdout)).not.toContain(TOKEN);

  const dry = await derun("rm", "--grep", "ghp_[A-Za-z0-9]{36}", "--dry-run");
  expect([dry.exitCode, text(dry.stdout)]).toEqual([0, "argv: would be removed\nout: would be removed\n"]);
  expect(fs.readdirSync(path.join(state.path, "sessions")).sort()).toEqual(["argv", "clean", "out"]);

  const done = await derun("rm", "-F", "--grep", TOKEN);
  expect([done.exitCode, text(done.stdout)]).toEqual([0, "argv: removed\nout: removed\n"]);
  expect(fs.readdirSync(path.join(state.path, "sessions"))).toEqual(["clean"]);

  const none = await derun("rm", "--grep", "no such text");
  expect([none.exitCode, text(none.stdout), text(none.stderr)]).toEqual([0, "", "derun: no session matches\n"]);
});

test("rm --grep: bad uses are usage errors that remove nothing", async () => {
  using state = tempDir();
  expect((await runDerun(["run", "--session-id", "s", "--", "echo", "x"], { stateRoot: state.path })).exitCode).toBe(0);
  for (const [args, message] of [
    [["--grep", "("], /^derun: --grep: /],
    [["--grep", "x", "s"], /^derun: derun rm takes sessions or --grep, not both/],
    [["--dry-run", "s"], /^derun: --dry-run goes with --grep/],
  ] as const) {
    const done = await runDerun(["rm", ...args], { stateRoot: state.path });
    expect(done.exitCode).toBe(2);
    expect(text(done.stderr)).toMatch(message);
  }
  expect(fs.readdirSync(path.join(state.path, "sessions"))).toEqual(["s"]);
});
