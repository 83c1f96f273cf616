/**
 * The text views render bytes the assembled pass went over first (src/transcript/assembled-text.ts):
 * a token whose second half is written first on another place of the screen shows as stars there,
 * counted once; one whose halves fall in two of the view's 1 MiB windows is masked on both sides
 * (the pass reads 4 KiB around each window); and output that places text the same way but holds no
 * secret reads exactly as recorded. Real `derun run` through pipes, read by the CLI and over MCP.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runDerun, tempDir, text } from "../helpers/cli.ts";
import { connectAgent, type AgentClient } from "../helpers/agent.ts";
import { leakedPieces, randomText } from "../helpers/secrets.ts";

const r = randomText(3877);
const [A, B] = [r(10), r(26)];
const [A2, B2] = [r(10), r(26)];
const state = tempDir("derun-assembled-text-");
const root = state.path;
let agent: AgentClient;

/** `printf` of the second half at row 5 column 24, then `ghp_` and the first half at column 10. */
const POSITIONED = 'printf \'\\033[5;24H%s\\033[5;10Hghp_%s\\033[7;1Hdone\\n\' "$B" "$A"';
/**
 * 1 MiB less 48 bytes of lines of filler, then the same: the second half begins 21 bytes before the
 * view's second window (1 MiB) and ends in it, the first half is in it.
 */
const ACROSS =
  `yes ${"x".repeat(99)} | head -n 10485; printf '%47s\\n' '' | tr ' ' x; ` + `printf '\\033[5;24H%s\\033[5;10Hghp_%s\\n' "$B" "$A"`;
/** The same moves, no secret: words placed out of order. */
const HARMLESS = "printf '\\033[5;24Hworld, from the right\\033[5;10Hhello there \\033[7;1Hdone\\n'";

beforeAll(async () => {
  const runs: Array<[string, string, Record<string, string>]> = [
    ["positioned", POSITIONED, { A, B }],
    ["across", ACROSS, { A: A2, B: B2 }],
    ["harmless", HARMLESS, {}],
  ];
  for (const [id, script, env] of runs) {
    const done = await runDerun(["run", "--session-id", id, "--", "sh", "-c", script], { stateRoot: root, env });
    expect({ id, status: done.exitCode }).toEqual({ id, status: 0 });
  }
  agent = await connectAgent(root);
}, 60_000);

afterAll(async () => {
  await agent?.[Symbol.asyncDispose]();
  state[Symbol.dispose]();
});

const cat = async (...args: string[]) => text((await runDerun(["cat", ...args], { stateRoot: root })).stdout);

describe("text views over secrets the terminal assembles", () => {
  test("the pieces read as stars, the rest of the line as recorded, the secret counted once", async () => {
    const recorded = await cat("positioned", "--no-redact");
    expect(leakedPieces(recorded, A + B).length).toBeGreaterThan(0);
    const shown = await cat("positioned");
    expect(leakedPieces(shown, A + B)).toEqual([]);
    // The same length: B's bytes and `ghp_`+A's became `*`, nothing else moved.
    expect(shown).toBe(recorded.replace(B, "*".repeat(B.length)).replace(`ghp_${A}`, "*".repeat(14)));
    const read = await agent.call("derun_read_text", { session_id: "positioned", view: "text" });
    const [header, ...lines] = read.text.split("\n");
    expect(lines.join("\n")).toBe(shown.trimEnd());
    expect(header).toContain("· 1 secret masked");
  });

  test("halves in two windows of the view are masked in both", async () => {
    const raw = await cat("across", "--view", "raw", "--no-redact");
    expect(raw.indexOf(B2)).toBe((1 << 20) - 21);
    const shown = await cat("across");
    expect(leakedPieces(shown, A2 + B2)).toEqual([]);
    expect(shown).toContain("*".repeat(B2.length));
    const tail = await agent.call("derun_read_text", { session_id: "across", view: "text", tail_lines: 3 });
    expect(tail.isError).toBe(false);
    expect(tail.text).toContain("*".repeat(14));
    expect(leakedPieces(tail.text, A2 + B2)).toEqual([]);
    const grep = text((await runDerun(["grep", "-F", "ghp_", "across"], { stateRoot: root })).stdout);
    expect(leakedPieces(grep, A2 + B2)).toEqual([]);
  });

  test("text placed the same way with no secret in it reads exactly as recorded", async () => {
    const recorded = await cat("harmless", "--no-redact");
    expect(recorded).toContain("hello there");
    expect(await cat("harmless")).toBe(recorded);
    const read = await agent.call("derun_read_text", { session_id: "harmless", view: "text" });
    expect(read.text).not.toContain("masked");
    expect(read.text.slice(read.text.indexOf("\n") + 1)).toBe(recorded.trimEnd());
  });
});
