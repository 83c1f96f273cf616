/**
 * No search is an oracle (issue 38 class 9, issue 43.4). `derun grep -v` and `-c` decide on the
 * masked line: a guess at a token's next character gets the same count and exit status right or
 * wrong. And in `derun mcp` a literal search for a token's own first characters finds nothing in
 * the time a wrong guess takes, on a session where the token fills half of 100,000 lines (before
 * the mask map, the right guess took about 60 times as long: every such line built, masked and
 * tested again). The margin asked is wide (3x) so a loaded machine does not fail it. The same holds
 * for `derun grep`, through the mask map the first grep keeps in the session's directory
 * (mask-map.bin): without it, a right guess took 727 ms against a wrong one's 75 (six searches a run).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { runDerun, tempDir, text } from "../helpers/cli.ts";
import { connectAgent, type AgentClient } from "../helpers/agent.ts";
import { randomText } from "../helpers/secrets.ts";

const TOKEN = `ghp_${randomText(5151)(36)}`;
const state = tempDir("derun-oracle-");
let agent: AgentClient;

beforeAll(async () => {
  const small = await runDerun(["run", "--session-id", "small", "--", "sh", "-c", 'echo "token $P"'], {
    stateRoot: state.path,
    env: { P: TOKEN },
  });
  expect(small.exitCode).toBe(0);
  const script =
    "import os,sys\nt=os.environ['P']\n" +
    "for i in range(100000): sys.stdout.write(f'line {i} token {t} ok\\n' if i % 2 == 0 else f'line {i} nothing here\\n')";
  const big = await runDerun(["run", "--session-id", "big", "--", "python3", "-c", script], { stateRoot: state.path, env: { P: TOKEN } });
  expect(big.exitCode).toBe(0);
  agent = await connectAgent(state.path);
}, 60_000);

const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!;

afterAll(async () => {
  await agent?.[Symbol.asyncDispose]();
  state[Symbol.dispose]();
});

test("derun grep -v -c: the same count and status for a right and a wrong guess", async () => {
  const right = TOKEN.slice(0, 8);
  const wrong = `${TOKEN.slice(0, 7)}${TOKEN[7] === "X" ? "Y" : "X"}`;
  const answers = [];
  for (const guess of [right, wrong])
    for (const flags of [["-v", "-c"], ["-c"], ["-v"]]) {
      const done = await runDerun(["grep", "-F", ...flags, guess, "small"], { stateRoot: state.path });
      answers.push({ flags: flags.join(" "), status: done.exitCode, out: text(done.stdout).replaceAll(guess, "GUESS") });
    }
  expect(answers.slice(0, 3)).toEqual(answers.slice(3));
  expect(answers[0]).toMatchObject({ status: 0, out: "1\n" });
});

test("derun grep: a token's own first characters find nothing, in a miss's time (the mask map kept on disk)", async () => {
  const map = join(state.path, "sessions", "big", "mask-map.bin");
  // The first grep builds the session's mask map, whatever its pattern, and keeps it in the session's directory.
  const first = await runDerun(["grep", "-c", "-F", "line 7 ", "big"], { stateRoot: state.path });
  expect({ status: first.exitCode, out: text(first.stdout), map: existsSync(map) }).toEqual({ status: 0, out: "1\n", map: true });
  // The session named six times: six searches in one process, so the search's time outweighs derun's start.
  const grep = async (pattern: string) => {
    const started = performance.now();
    const done = await runDerun(["grep", "-c", "-F", pattern, ...Array(6).fill("big")], { stateRoot: state.path });
    const ms = performance.now() - started;
    expect({ pattern, status: done.exitCode, out: text(done.stdout) }).toEqual({ pattern, status: 1, out: "big:0\n".repeat(6) });
    return ms;
  };
  const right: number[] = [];
  const wrong: number[] = [];
  for (let i = 0; i < 5; i++) {
    right.push(await grep(TOKEN.slice(0, 16)));
    wrong.push(await grep(`${TOKEN.slice(0, 15)}${TOKEN[15] === "X" ? "Y" : "X"}`));
  }
  expect(median(right)).toBeLessThan(3 * Math.max(median(wrong), 20));
}, 60_000);

test("derun_search_output: a token's own first characters find nothing, in a miss's time", async () => {
  const search = async (pattern: string) => {
    const started = performance.now();
    const a = await agent.call("derun_search_output", { session_id: "big", pattern, literal: true });
    const ms = performance.now() - started;
    const count = /(\d+) of \d+ lines match|(\d+) matching lines?/.exec(a.text.split("\n")[0]!);
    expect({ pattern, header: count === null ? a.text.split("\n")[0] : "" }).toEqual({ pattern, header: "" });
    return { ms, count: Number(count![1] ?? count![2]) };
  };
  // The first search builds the session's mask map, whatever its pattern.
  expect((await search("line 7 ")).count).toBeGreaterThan(0);
  const right: number[] = [];
  const wrong: number[] = [];
  for (let i = 0; i < 5; i++) {
    const r = await search(TOKEN.slice(0, 16));
    const w = await search(`${TOKEN.slice(0, 15)}${TOKEN[15] === "X" ? "Y" : "X"}`);
    expect({ right: r.count, wrong: w.count }).toEqual({ right: 0, wrong: 0 });
    right.push(r.ms);
    wrong.push(w.ms);
  }
  expect(median(right)).toBeLessThan(3 * Math.max(median(wrong), 20));
}, 60_000);
