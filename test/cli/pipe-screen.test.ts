/**
 * The screen view of a pipe session (issue 25): a pipe's bare LF is a new line, as the terminal
 * that `2>&1 | less -R` would show, not a step down and to the right (the staircase). Recorded by a
 * real `derun run` with pipes; read with `derun cat`/`tail --view screen` and derun_read_text's
 * "screen" view over the SDK's own client. A PTY session's bytes already carry their CR: its screen
 * is unchanged (a bare LF there moves down only, as a terminal in raw mode does).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runDerun, tempDir, text } from "../helpers/cli.ts";
import { connectAgent, recordInPty, recordWithPipes } from "../helpers/agent.ts";

const state = tempDir("derun-pipe-screen-");
const root = state.path;
const derun = (...args: string[]) => runDerun(args, { stateRoot: root });

beforeAll(async () => {
  await recordWithPipes(root, "pipe", ["sh", "-c", "printf 'a\\nb\\nc\\n'; printf 'out 1\\nout 2\\n'; printf 'x\\ry\\n'"]);
  // On a PTY, stty -onlcr lets the program's bare LF through as it is: the terminal moves down only.
  await recordInPty(root, "raw-pty", ["sh", "-c", "stty -onlcr; printf 'a\\nb\\n'"]);
}, 60_000);
afterAll(() => state[Symbol.dispose]());

describe("the screen view of a pipe session", () => {
  test("derun cat and tail --view screen: one line per LF, each from the first column", async () => {
    const cat = await derun("cat", "--view", "screen", "pipe");
    expect([cat.exitCode, text(cat.stdout), text(cat.stderr)]).toEqual([0, "a\nb\nc\nout 1\nout 2\ny\n", ""]);
    const tail = await derun("tail", "-n", "2", "--view", "screen", "pipe");
    expect(text(tail.stdout)).toBe("out 2\ny\n");
  });

  test('derun_read_text view "screen" over stdio: the same lines', async () => {
    await using agent = await connectAgent(root);
    const answer = await agent.call("derun_read_text", { session_id: "pipe", view: "screen" });
    expect(answer.isError).toBe(false);
    expect(answer.text.split("\n").slice(1)).toEqual(["a", "b", "c", "out 1", "out 2", "y"]);
  });

  test("a PTY session's bare LF still only moves down", async () => {
    const cat = await derun("cat", "--view", "screen", "raw-pty");
    expect(text(cat.stdout)).toBe("a\n b\n");
  });
});
