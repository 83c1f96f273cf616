/**
 * Each answer's header says how many secrets it masked (issue 24), derun_wait_command's and
 * derun_last_failure's (and derun why's) too: a run that fails with a token on its command line
 * and another printed is read back through the SDK's client over stdio and the CLI; the masks in
 * the command line and in the lines shown are counted in the header, and in `redacted` where the
 * answer has a result object. A run without secrets says nothing of masks.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { derunArgv, derunEnv, runDerun, tempDir, text } from "../helpers/cli.ts";
import { watched } from "../helpers/inotify.ts";
import { connectAgent, serverPid, type AgentClient } from "../helpers/agent.ts";
import { leakedPieces, randomText } from "../helpers/secrets.ts";

const r = randomText(4242);
/** Printed (from a variable no rule knows by name, so only the token's shape finds it). */
const PRINTED = `ghp_${r(36)}`;
/** On the command line, after --token. */
const ARGV = `glpat-${r(20)}`;

const state = tempDir("derun-masked-count-");
const root = state.path;
let agent: AgentClient;

/** `derun run` of a command that prints PRINTED, says it failed and exits 3, with ARGV on its command line. */
const recordFailure = async (id: string) => {
  const done = await runDerun(
    ["run", "--session-id", id, "--", "sh", "-c", `echo "pushing with $T"; echo "error: push denied" >&2; exit 3`, "push", "--token", ARGV],
    { stateRoot: root, env: { T: PRINTED } },
  );
  if (done.exitCode !== 3) throw new Error(`${id}: derun run exited ${done.exitCode}: ${text(done.stderr)}`);
};

beforeAll(async () => {
  await recordFailure("failed");
  const plain = await runDerun(["run", "--session-id", "plain", "--", "sh", "-c", "echo 'error: nothing secret'; exit 1"], {
    stateRoot: root,
  });
  expect(plain.exitCode).toBe(1);
  agent = await connectAgent(root);
}, 60_000);

afterAll(async () => {
  await agent?.[Symbol.asyncDispose]();
  state[Symbol.dispose]();
});

const header = (answer: string) => answer.split("\n")[0]!;
const leaks = (answer: string) => [...leakedPieces(answer, PRINTED), ...leakedPieces(answer, ARGV)];

describe("the masked count in every header", () => {
  test("derun_last_failure: the command line's mask and the printed token's, 2", async () => {
    const a = await agent.call("derun_last_failure", { session_id: "failed" });
    expect(a.text).toContain("error: push denied");
    expect(leaks(a.text)).toEqual([]);
    expect(header(a.text)).toEndWith(" · 2 secrets masked");
    const plain = await agent.call("derun_last_failure", { session_id: "plain" });
    expect(header(plain.text)).not.toContain("masked");
  });

  test("derun why and derun why --json: the same count", async () => {
    const why = await runDerun(["why", "failed"], { stateRoot: root });
    expect(why.exitCode).toBe(0);
    expect(header(text(why.stdout))).toEndWith(" · 2 secrets masked");
    const json = await runDerun(["why", "failed", "--json"], { stateRoot: root });
    expect(JSON.parse(text(json.stdout))).toMatchObject({ session_id: "failed", exit_code: 3, redacted: 2 });
    expect(leaks(text(why.stdout) + text(json.stdout))).toEqual([]);
  });

  test.skipIf(process.platform !== "linux")(
    "derun_wait_command: the run that ends while it waits, 2 in its header and in redacted",
    async () => {
      const pending = agent.call("derun_wait_command", { timeout_ms: 60000 });
      // The wait armed (its inotify watch seen) before the run that ends.
      await watched(() => serverPid(root), join(root, "sessions"));
      await recordFailure("waited");
      const a = await pending;
      expect(a.result).toMatchObject({ timed_out: false, session: { session_id: "waited", exit_code: 3 }, redacted: 2 });
      expect(header(a.text)).toEndWith(" · 2 secrets masked");
      expect(leaks(a.text + JSON.stringify(a.result))).toEqual([]);
    },
    60_000,
  );

  test.skipIf(process.platform !== "linux")(
    "derun wait: a plain run's answer says nothing of masks",
    async () => {
      const waiting = Bun.spawn([...derunArgv(), "wait", "--json", "--timeout", "60000"], {
        env: derunEnv(root),
        stdout: "pipe",
        stderr: "pipe",
      });
      await watched(() => waiting.pid, join(root, "sessions"));
      const plain = await runDerun(["run", "--session-id", "plain2", "--", "sh", "-c", "echo done"], { stateRoot: root });
      expect(plain.exitCode).toBe(0);
      const [out, code] = await Promise.all([new Response(waiting.stdout).text(), waiting.exited]);
      expect(code).toBe(0);
      const answer = JSON.parse(out);
      expect(answer).toMatchObject({ timed_out: false, session: { session_id: "plain2" } });
      expect(answer.redacted).toBeUndefined();
    },
    60_000,
  );
});
