/**
 * `derun grep` on sessions recorded by real `derun run` processes (pipe and PTY): grep's exit codes
 * (0 a match, 1 none, 2 an error), `line:` with one session and `id:line:` across several (the newest
 * ones without ids), context lines and `--` between groups, -i and -F, --max, --json with the fields
 * of derun_search_output's answer, colour on a terminal only and never with NO_COLOR.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openFileStore } from "../../src/file-store/index.ts";
import { openLogSink } from "../../src/file-store/log-sink.ts";
import searchOutput from "../../src/tools/search-output.ts";
import { derunArgv, derunEnv, runDerun, tempDir, text } from "../helpers/cli.ts";
import { spawnInPty } from "../helpers/pty.ts";
import { recordPipe, recordPty } from "../helpers/cli-recordings.ts";

const state = tempDir("derun-cli-grep-");
const root = state.path;
const grep = (...args: string[]) => runDerun(["grep", ...args], { stateRoot: root });
const out = (done: { stdout: Uint8Array }) => text(done.stdout).split("\n").slice(0, -1);

beforeAll(async () => {
  // The oldest: eleven sessions after it (once only the ten newest were searched).
  await recordPipe(root, "old", "echo 'a needle in an old session'");
  for (let i = 1; i <= 8; i++) await recordPipe(root, `filler-${i}`, `echo filler ${i}`);
  await recordPipe(
    root,
    "build",
    "printf 'cc a.c\\na.c:3: warning: unused x\\ncc b.c\\ncc c.c\\nc.c:9: warning: sign\\ncc d.c\\nc.c:12: Warning: " +
      "shadow\\nlink\\n'; echo 'ld: error: [x] undefined' >&2; exit 1",
    1,
  );
  await recordPipe(root, "tests", "printf 'PASS adds\\nFAIL totals\\nExpected: 6\\nReceived: 5\\nPASS removes\\n'");
  const pty = await recordPty(root, "tty", ["sh", "-c", "printf '\\033[31mERROR\\033[0m: disk full\\nprogress 10%%\\rprogress 100%%\\n'"]);
  expect(pty.exitCode).toBe(0);
}, 60_000);

afterAll(() => state[Symbol.dispose]());

describe("derun grep", () => {
  test("one session: line:text, numbered as cat's text view; exit 0 on a match, 1 on none", async () => {
    const found = await grep("warning", "build");
    expect([found.exitCode, out(found), text(found.stderr)]).toEqual([0, ["2:a.c:3: warning: unused x", "5:c.c:9: warning: sign"], ""]);
    const cat = out(await runDerun(["cat", "build"], { stateRoot: root }));
    expect(cat[1]).toBe("a.c:3: warning: unused x");
    const none = await grep("nothing like this", "build");
    expect([none.exitCode, out(none), text(none.stderr)]).toEqual([1, [], ""]);
  }, 60_000);

  test("-i, -F, and the text view of a terminal session (colours gone, a redraw collapsed)", async () => {
    expect(out(await grep("-i", "WARNING", "build"))).toEqual([
      "2:a.c:3: warning: unused x",
      "5:c.c:9: warning: sign",
      "7:c.c:12: Warning: shadow",
    ]);
    const literal = await grep("-F", "[x]", "build");
    expect([literal.exitCode, out(literal)]).toEqual([0, [expect.stringMatching(/^\d+:ld: error: \[x\] undefined$/)]]);
    expect(out(await grep("^ERROR: disk", "tty"))).toEqual(["1:ERROR: disk full"]);
    expect(out(await grep("progress", "tty"))).toEqual(["2:progress 100%"]);
    expect(out(await grep("--regexp=-", "tests"))).toEqual([]);
    expect(out(await grep("-e", "PASS", "tests"))).toEqual(["1:PASS adds", "5:PASS removes"]);
    // After `--` nothing is an option, as with grep: the pattern, then the sessions.
    const dash = await grep("--", "-i", "build");
    expect([dash.exitCode, text(dash.stderr)]).toEqual([1, ""]); // searched for "-i": no such line
    expect(out(await grep("--", ": warning", "build"))).toEqual(["2:a.c:3: warning: unused x", "5:c.c:9: warning: sign"]);
    expect(out(await grep("-e", "FAIL", "--", "tests"))).toEqual(["2:FAIL totals"]);
  }, 60_000);

  test("several -e: a line matching any of them, each pattern regular or (-F) plain; -e takes a value that starts with -", async () => {
    expect(out(await grep("-e", "FAIL", "-e", "^Rec", "tests"))).toEqual(["2:FAIL totals", "4:Received: 5"]);
    expect(out(await grep("-F", "-e", "[x]", "-e", "cc b", "build"))).toEqual([
      "3:cc b.c",
      expect.stringMatching(/^\d+:ld: error: \[x\] undefined$/),
    ]);
    expect(out(await grep("-w", "-e", "adds", "-e", "remove", "tests"))).toEqual(["1:PASS adds"]);
    expect(out(await grep("-c", "-e", "PASS", "-e", "FAIL", "tests"))).toEqual(["3"]);
    // As grep's -e: the value is the next argument, whatever it starts with.
    const dash = await grep("-e", "-i", "build");
    expect([dash.exitCode, text(dash.stderr)]).toEqual([1, ""]); // searched for "-i": no such line
    expect(out(await grep("-e", ": warning", "-e", "-x", "build"))).toEqual(["2:a.c:3: warning: unused x", "5:c.c:9: warning: sign"]);
    // Each pattern is judged alone, and named as typed.
    const bad = await grep("-e", "a)(b", "-e", "FAIL", "tests");
    expect([bad.exitCode, text(bad.stderr).split("\n")[0]]).toEqual([2, expect.stringMatching(/^derun: invalid pattern "a\)\(b": /)]);
    // Groups are numbered across the patterns: a back-reference would point into another one.
    const backref = await grep("-e", "(P)\\1", "-e", "(F)\\1", "tests");
    expect([backref.exitCode, text(backref.stdout)]).toEqual([2, ""]);
  }, 60_000);

  test("several sessions: id:line:, in the order given; without ids every session, newest first (the eleventh too)", async () => {
    const two = await grep("-i", "error|fail", "build", "tests", "tty");
    expect(out(two)).toEqual([
      expect.stringMatching(/^build:\d+:ld: error: \[x\] undefined$/),
      "tests:2:FAIL totals",
      "tty:1:ERROR: disk full",
    ]);
    const newest = await grep("filler [1-3]$");
    expect([newest.exitCode, out(newest)]).toEqual([0, ["filler-3:1:filler 3", "filler-2:1:filler 2", "filler-1:1:filler 1"]]);
    const old = await grep("needle");
    expect([old.exitCode, out(old), text(old.stderr)]).toEqual([0, ["old:1:a needle in an old session"], ""]);
    expect(out(await grep("needle", "old"))).toEqual(["1:a needle in an old session"]);
  }, 60_000);

  test("-C: context lines as line-text (id-line-text), -- between groups that do not touch, and between sessions", async () => {
    expect(out(await grep("-C", "1", "unused|shadow", "build"))).toEqual([
      "1-cc a.c",
      "2:a.c:3: warning: unused x",
      "3-cc b.c",
      "--",
      "6-cc d.c",
      "7:c.c:12: Warning: shadow",
      "8-link",
    ]);
    // Groups that touch run on, as in grep.
    expect(out(await grep("-C", "1", "warning", "build"))).toEqual([
      "1-cc a.c",
      "2:a.c:3: warning: unused x",
      "3-cc b.c",
      "4-cc c.c",
      "5:c.c:9: warning: sign",
      "6-cc d.c",
    ]);
    expect(out(await grep("-C", "1", "^Received", "tests", "tty"))).toEqual([
      "tests-3-Expected: 6",
      "tests:4:Received: 5",
      "tests-5-PASS removes",
    ]);
    expect(out(await grep("-C", "1", "FAIL|ERROR", "tests", "tty"))).toEqual([
      "tests-1-PASS adds",
      "tests:2:FAIL totals",
      "tests-3-Expected: 6",
      "--",
      "tty:1:ERROR: disk full",
      "tty-2-progress 100%",
    ]);
  }, 60_000);

  test("errors: a bad pattern is one line and 2; a missing session is 2, after the others are searched", async () => {
    for (const pattern of ["(", "(?=x)(a+)+$"]) {
      const bad = await grep(pattern, "build");
      expect(bad.exitCode).toBe(2);
      expect(bad.stdout.length).toBe(0);
      expect(text(bad.stderr)).toMatch(/^derun: invalid pattern "\(.*\n$/);
    }
    const missing = await grep("PASS", "no-such-session", "tests");
    expect([missing.exitCode, out(missing), text(missing.stderr)]).toEqual([
      2,
      ["tests:1:PASS adds", "tests:5:PASS removes"],
      "derun: session not found: no-such-session\n",
    ]);
    const usage = await grep();
    expect([usage.exitCode, text(usage.stderr).split("\n")[0]]).toEqual([2, "derun: derun grep needs a pattern"]);
    expect((await grep("x", "build", "--command", "last")).exitCode).toBe(2); // build is not a shell session
    expect((await grep("x", "--command", "1")).exitCode).toBe(2);
  }, 60_000);

  test("--max shows that many and says how many matched; --json has derun_search_output's fields", async () => {
    const capped = await grep("--max", "1", "-i", "warning", "build");
    expect([capped.exitCode, out(capped), text(capped.stderr)]).toEqual([
      0,
      ["2:a.c:3: warning: unused x"],
      "derun: 1 of 3 matching lines shown (--max for more)\n",
    ]);
    const json = JSON.parse(text((await grep("--json", "-C", "1", "warning", "build")).stdout));
    const store = openFileStore({ root, log: openLogSink(root, { component: "test" }) });
    const answer = await searchOutput.handler(
      { pattern: "warning", session_id: "build", context: 1 },
      { store, signal: new AbortController().signal },
    );
    expect(json).toEqual(JSON.parse(JSON.stringify(answer)));
    expect(json).toMatchObject({ schema_version: "v1alpha1", pattern: "warning", sessions_searched: 1, match_count: 2, truncated: false });
    expect(json.results[0].matches.map((m: { line: number }) => m.line)).toEqual([2, 5]);
  }, 60_000);

  test("colour on a terminal: matches bold red, ids magenta, numbers green; none with NO_COLOR or into a pipe", async () => {
    for (const noColor of ["", "1"]) {
      const run = spawnInPty([...derunArgv(), "grep", "warn", "build", "tests"], {
        env: derunEnv(root, { NO_COLOR: noColor }),
        cols: 100,
        rows: 20,
      });
      expect((await run.exited).exitCode).toBe(0);
      const screen = text(run.output());
      if (noColor) expect(screen).toBe("build:2:a.c:3: warning: unused x\r\nbuild:5:c.c:9: warning: sign\r\n");
      else
        expect(screen.split("\r\n")[0]).toBe(
          "\x1b[35mbuild\x1b[39m\x1b[36m:\x1b[39m\x1b[32m2\x1b[39m\x1b[36m:\x1b[39ma.c:3: \x1b[31m\x1b[1mwarn\x1b[22m\x1b[39ming: unused x",
        );
    }
    expect(text((await runDerun(["grep", "warn", "build"], { stateRoot: root, env: { NO_COLOR: "" } })).stdout)).not.toContain("\x1b");
  }, 60_000);
});
