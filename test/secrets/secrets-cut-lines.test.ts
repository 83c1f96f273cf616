/**
 * A secret in a line longer than a text read's max_bytes. The text view ends a page after a line,
 * but a line with no LF in the window is cut where the window ends; each piece alone looks like no
 * secret, so each must be masked with the bytes around it, as raw reads are. Sessions recorded by
 * `derun run`, read page by page through derun_read_output and derun_wait_output (`view: "text"`)
 * with the SDK's client over stdio: no page holds a 12-character piece of any secret, and the pages
 * joined are the line with only the secrets masked.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runDerun, tempDir, text } from "../helpers/cli.ts";
import { connectAgent, type AgentClient } from "../helpers/agent.ts";
import { leakedPieces, SECRETS } from "../helpers/secrets.ts";

/** 65,520 bytes, then the token: the default read (64 KiB) ends inside it, as an agent found. */
const LONG_PREFIX = "x".repeat(65_520);
/** The secrets known by their shape alone (the others are found by the name printed before them). */
const SHAPED = [
  SECRETS.github,
  SECRETS.githubFine,
  SECRETS.gitlab,
  SECRETS.awsId,
  SECRETS.openai,
  SECRETS.anthropic,
  SECRETS.slack,
  SECRETS.stripe,
  SECRETS.google,
  SECRETS.npm,
  SECRETS.jwt,
];
const ONE_LINE = SHAPED.map((secret, i) => `field${i} ${secret}`).join(" ");

const state = tempDir("derun-secrets-cut-");
const root = state.path;
let agent: AgentClient;

const record = async (id: string, line: string) => {
  const done = await runDerun(["run", "--session-id", id, "--", "sh", "-c", 'printf "%s\\n" "$LINE"'], {
    stateRoot: root,
    env: { LINE: line },
  });
  if (done.exitCode !== 0) throw new Error(`${id}: derun run exited ${done.exitCode}: ${text(done.stderr)}`);
};

beforeAll(async () => {
  await record("long", `${LONG_PREFIX} ${SECRETS.github} tail`);
  await record("all", ONE_LINE);
  agent = await connectAgent(root);
}, 60_000);

afterAll(async () => {
  await agent?.[Symbol.asyncDispose]();
  state[Symbol.dispose]();
});

/** Every page of a session's text view, read on with next_cursor; the pages' data in order. */
async function pages(tool: "derun_read_output" | "derun_wait_output", id: string, maxBytes?: number): Promise<string[]> {
  const out: string[] = [];
  let cursor = "0";
  for (let calls = 0; calls < 20_000; calls++) {
    const args = { session_id: id, view: "text", cursor, ...(maxBytes === undefined ? {} : { max_bytes: maxBytes }) };
    const { result } = await agent.call(tool, tool === "derun_wait_output" ? { ...args, timeout_ms: 1000 } : args);
    out.push(result.chunks.map((c: { data: string }) => c.data).join(""));
    cursor = result.next_cursor;
    if (result.eof) return out;
  }
  throw new Error(`${id}: never reached the end`);
}

const leaks = (page: string) => SHAPED.flatMap((secret) => leakedPieces(page, secret));

/** Where `read` differs from `line`, and not within a secret of it: text masked that is no secret. */
function changedOutsideSecrets(read: string, line: string): number[] {
  const inSecret = new Uint8Array(line.length);
  for (const secret of SHAPED)
    for (let at = line.indexOf(secret); at >= 0; at = line.indexOf(secret, at + 1)) inSecret.fill(1, at, at + secret.length);
  const out: number[] = [];
  for (let i = 0; i < line.length; i++) if (read[i] !== line[i] && inSecret[i] === 0) out.push(i);
  return out;
}

describe("a secret where a text read cuts a long line", () => {
  test("the default read ends inside a token after 65,520 bytes: neither page shows it", async () => {
    for (const tool of ["derun_read_output", "derun_wait_output"] as const) {
      const read = await pages(tool, "long");
      expect(read.length).toBeGreaterThan(1);
      expect(read.flatMap(leaks)).toEqual([]);
      const joined = read.join("");
      expect(joined).toStartWith(`${LONG_PREFIX} `);
      expect(joined).toEndWith(" tail\n");
      expect(joined.length).toBe(LONG_PREFIX.length + SECRETS.github.length + 7);
    }
  });

  test.each([20, 37, 64, 100])("pages of %i bytes over one line of every kind of secret: none shows a piece", async (maxBytes) => {
    const read = await pages("derun_read_output", "all", maxBytes);
    expect(read.length).toBeGreaterThan(ONE_LINE.length / maxBytes - 1);
    expect(read.flatMap(leaks)).toEqual([]);
    const joined = read.join("");
    expect(joined).toHaveLength(ONE_LINE.length + 1);
    // What is not a secret reads as it was printed (masks keep lengths, so it stays where it was).
    expect(changedOutsideSecrets(joined, ONE_LINE)).toEqual([]);
    expect(joined).not.toBe(`${ONE_LINE}\n`);
  });
});
