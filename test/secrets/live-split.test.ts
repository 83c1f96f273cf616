/**
 * Issue 38, class 4: a token written in two writes, followed live. `derun tail -f --view raw` and
 * derun_wait_output (raw, from the SDK's client over stdio) are both reading the live tail when the
 * first half is committed; its last word is held back (src/transcript/live-hold.ts) until the rest
 * arrives, so neither shows 12 characters of the token, and both show it masked whole.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { derunArgv, derunEnv, tempDir } from "../helpers/cli.ts";
import { collect, recordedBytes, waitUntil } from "../helpers/cli-recordings.ts";
import { connectAgent, type AgentClient } from "../helpers/agent.ts";
import { leakedPieces, randomText } from "../helpers/secrets.ts";

const R = randomText(4044)(36);
const TOKEN = `ghp_${R}`;
const state = tempDir("derun-live-split-");
let agent: AgentClient;

beforeAll(async () => {
  agent = await connectAgent(state.path);
});

afterAll(async () => {
  await agent?.[Symbol.asyncDispose]();
  state[Symbol.dispose]();
});

test("a token split across two writes reaches no live follower in pieces", async () => {
  // The program writes the token's first 13 random characters, then the rest 0.1 s later: a gap
  // of its own, well inside the hold, whatever the load on the test's process.
  const run = Bun.spawn(
    [
      ...derunArgv(),
      "run",
      "--session-id",
      "split",
      "--",
      "sh",
      "-c",
      "echo starting; read go; printf 'token %s' \"$P1\"; sleep 0.1; printf '%s end\\n' \"$P2\"",
    ],
    { env: derunEnv(state.path, { P1: TOKEN.slice(0, 17), P2: TOKEN.slice(17) }), stdin: "pipe", stdout: "pipe", stderr: "pipe" },
  );
  const drained = Promise.all([new Response(run.stdout).arrayBuffer(), new Response(run.stderr).arrayBuffer()]);
  await waitUntil(() => recordedBytes(state.path, "split") > 0, "the session started");
  const tail = Bun.spawn([...derunArgv(), "tail", "-f", "split", "--view", "raw"], {
    env: derunEnv(state.path),
    stdout: "pipe",
    stderr: "pipe",
  });
  const shown = collect(tail.stdout);
  // The agent follows too, one wait after another, each from the last answer's cursor.
  const answers: string[] = [];
  let cursor = "0";
  const following = (async () => {
    for (let i = 0; i < 200; i++) {
      const a = await agent.call("derun_wait_output", { session_id: "split", cursor, timeout_ms: 5000 });
      answers.push(a.text);
      if (a.result.eof) return;
      cursor = a.result.next_cursor;
    }
  })();
  // Both followers at the tail before the token comes.
  await waitUntil(
    () => new TextDecoder().decode(shown.bytes()).includes("starting") && cursor !== "0",
    "both followers past the first line",
  );
  run.stdin.write("go\n");
  run.stdin.end();
  await drained;
  expect(await run.exited).toBe(0);
  await following;
  await tail.exited;
  const followed = new TextDecoder().decode(await shown.done);
  const agentSaw = answers.join("\n");
  expect({ tail: leakedPieces(followed, R), agent: leakedPieces(agentSaw, R) }).toEqual({ tail: [], agent: [] });
  // Shown whole once complete, and masked: the same length in stars.
  expect(followed).toContain(`token ${"*".repeat(TOKEN.length)} end`);
  expect(agentSaw).toContain(`${"*".repeat(TOKEN.length - 17)} end`);
}, 60_000);
