/**
 * "Why did that fail?" in one call: real failing programs recorded through `derun run` (pipes and a
 * PTY) and typed into `derun shell`, each answered by one derun_last_failure call over stdio, with no
 * arguments (the newest failure), holding the failure's key lines in at most 4,000 characters.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { REPO_ROOT, tempDir } from "../helpers/cli.ts";
import { shellHome, startShell } from "../helpers/shells.ts";
import { untilTrue } from "../helpers/until.ts";
import { connectAgent, recordInPty, recordWithPipes, type AgentClient } from "../helpers/agent.ts";

const TSC = path.join(REPO_ROOT, "node_modules/.bin/tsc");
const BUDGET = 4000;
const count = (text: string, part: string) => text.split(part).length - 1;

describe("derun_last_failure", () => {
  const state = tempDir();
  const work = tempDir();
  let agent: AgentClient;
  beforeAll(async () => {
    agent = await connectAgent(state.path);
  });
  afterAll(async () => {
    await agent[Symbol.asyncDispose]();
    state[Symbol.dispose]();
    work[Symbol.dispose]();
  });
  const why = async () => {
    const answer = await agent.call("derun_last_failure");
    expect(answer.isError).toBe(false);
    expect(answer.text.length).toBeLessThanOrEqual(BUDGET);
    if (process.env.SHOW_ANSWERS) console.log(`${answer.text}\n[${answer.text.length} characters]`);
    return answer.text;
  };

  test("a failing bun test run: the assertion, its diff and the failed test", async () => {
    fs.writeFileSync(
      path.join(work.path, "math.test.ts"),
      'import { expect, test } from "bun:test";\ntest("adds", () => {\n  expect(1 + 1).toBe(3);\n});\ntest("passes", () => {});\n',
    );
    const run = await recordWithPipes(state.path, "bun-test", [process.execPath, "test", "./math.test.ts"], { cwd: work.path });
    expect(run.exitCode).toBe(1);
    const text = await why();
    expect(text.split("\n")[0]).toMatch(/^session bun-test: exited 1 · .* · ran .* · \d+ failure lines? in \d+ lines$/);
    expect(text).toMatch(/\n\d+:error: expect\(received\)\.toBe\(expected\)\n/);
    expect(text).toMatch(/\n\d+-Expected: 3\n/);
    expect(text).toMatch(/\n\d+-Received: 2\n/);
    expect(text).toMatch(/\n\d+:\(fail\) adds/);
  });

  test("a compiler error on a terminal: tsc's error and its code frame", async () => {
    fs.writeFileSync(path.join(work.path, "a.ts"), 'const x: number = "a";\nexport { x };\n');
    await recordInPty(state.path, "tsc", [TSC, "--noEmit", "a.ts"], { cwd: work.path });
    const text = await why();
    expect(text.split("\n")[0]).toMatch(/^session tsc: exited [12] · /);
    expect(text).toMatch(/\n\d+:a\.ts:1:7 - error TS2322: Type 'string' is not assignable to type 'number'\.\n/);
    expect(text).toContain('const x: number = "a";');
  });

  test("an error line in the middle of a 2.4 MB log", async () => {
    const lines: string[] = [];
    for (let i = 0; i < 35000; i++)
      lines.push(`2026-11-26 12:00:00.${String(i % 1000).padStart(3, "0")} INFO worker-${i % 7} handled request ${i} in ${i % 97} ms`);
    lines.splice(17500, 0, "2026-11-26 12:00:01.000 ERROR db: connection refused (host=db port=5432)");
    fs.writeFileSync(path.join(work.path, "big.log"), lines.join("\n") + "\n");
    expect(fs.statSync(path.join(work.path, "big.log")).size).toBeGreaterThan(2.4e6);
    await recordWithPipes(state.path, "big-log", ["sh", "-c", "cat big.log; exit 3"], { cwd: work.path });
    const text = await why();
    expect(text.split("\n")[0]).toStartWith("session big-log: exited 3 · ");
    expect(text).toContain("\n17501:2026-11-26 12:00:01.000 ERROR db: connection refused (host=db port=5432)\n");
    expect(text).toContain("\n35001-"); // the last line
    expect(text).toMatch(
      /\nleft out: [\d,]+ lines not shown, the most at \d+-\d+: derun_read_text session_id="big-log" view="text" from_line=\d+ head_lines=200$/,
    );
  });

  test("tsc --watch with three compiles: only the last compile's errors", async () => {
    // tsc 7's watch mode does not yet see file changes here: a program printing what tsc --watch
    // prints on a terminal (its bytes, captured), one compile per line typed, until Ctrl-C.
    const compile = (name: string) =>
      `\x1b[2J\x1b[3J\x1b[H[\x1b[90m08:38:20 PM\x1b[0m] ` +
      `${name === "first" ? "Starting compilation in watch mode" : "File change detected. Starting incremental compilation"}...\n\n` +
      `\x1b[96mw.ts\x1b[0m:\x1b[93m1\x1b[0m:\x1b[93m7\x1b[0m - \x1b[91merror\x1b[0m\x1b[90m TS2322: \x1b[0mType 'string' is not ` +
      `assignable to type 'number'.\n\n` +
      `\x1b[7m1\x1b[0m const ${name}: number = "${name}";\n\x1b[7m \x1b[0m \x1b[91m      ~~~~~\x1b[0m\n\n\nFound 1 error in ` +
      `w.ts\x1b[90m:1\x1b[0m\n\n` +
      `[\x1b[90m08:38:23 PM\x1b[0m] Found 1 error. Watching for file changes.\n\n`;
    const program = path.join(work.path, "fake-tsc-watch.ts");
    fs.writeFileSync(
      program,
      `const compiles = ${JSON.stringify(["first", "second", "third"].map(compile))};\n` +
        `process.stdout.write(compiles.shift()!);\nfor await (const _ of console) { process.stdout.write(compiles.shift() ?? ""); }\n`,
    );
    await recordInPty(state.path, "watch", [process.execPath, program], {
      cwd: work.path,
      drive: async (run) => {
        for (const n of [1, 2]) {
          await run.waitFor((out) => count(out, "Watching for file changes") >= n, `compile ${n}`);
          run.type("\r");
        }
        await run.waitFor((out) => count(out, "Watching for file changes") >= 3, "compile 3");
        run.type("\x03");
      },
    });
    const text = await why();
    expect(text.split("\n")[0]).toMatch(
      /^session watch: (signaled SIGINT|exited 130) · .* · 1 failure line in lines \d+-\d+ \(after the last clear of the screen\) of \d+$/,
    );
    expect(text).toMatch(/\n\d+:w\.ts:1:7 - error TS2322: /);
    expect(text).toContain(`const third: number = "third";`);
    expect(text).not.toContain("second");
    expect(text).not.toContain("first");
    expect(text).toMatch(/\nleft out: lines 1-\d+ came before the screen was last cleared/);
  });

  test.skipIf(Bun.which("bash") === null)("a Python traceback typed into derun shell, then a command that succeeds", async () => {
    fs.writeFileSync(
      path.join(work.path, "tb.py"),
      "def ratio(a, b):\n    return a / b\n\ndef main():\n    print('computing')\n    print(ratio(1, 0))\n\nmain()\n",
    );
    using home = shellHome("bash");
    fs.copyFileSync(path.join(work.path, "tb.py"), path.join(home.path, "tb.py"));
    const shell = startShell("bash", home, { withMarks: true, viaDerun: { stateRoot: state.path, sessionId: "sh" } });
    await shell.prompts(1);
    shell.type("python3 tb.py\r");
    await shell.prompts(2);
    shell.type("echo fine\r");
    await shell.prompts(3);
    // On the screen is not yet on disk: derun forwards a chunk before its recorder commits it, and
    // the third prompt's mark in output.bin is what says the failed command's end is recorded.
    const output = path.join(state.path, "sessions", "sh", "output.bin");
    await untilTrue("the third prompt recorded", () => fs.readFileSync(output, "latin1").split("\x1b]133;A").length > 3);
    const text = await why();
    await shell.exit();
    expect(text.split("\n")[0]).toMatch(
      new RegExp(`^command 1 of session sh: exit 1 · in ${home.path} · \\$ python3 tb\\.py · ran .* · 2 failure lines in \\d+ lines$`),
    );
    expect(text).toMatch(/\n\d+:Traceback \(most recent call last\):\n/);
    // All of it (a short output is shown whole), the exception right after its frame.
    expect(text).toContain("-computing\n");
    expect(text).toMatch(/\n\d+- {4}return a \/ b\n(\d+-\s+~+\^~+\n)?\d+:ZeroDivisionError: division by zero$/);
  });
});
