/**
 * Pieces of a token across a text reader's window edge (issue 38, class 2; src/transcript/text-far.ts).
 * The text readers replay windows of 1 MiB: a token the screen puts together from a half drawn
 * 5-9 KB before an edge and a half drawn after it was masked in neither window (the 4 KiB read on
 * either side reached neither half from the other). Each plant writes a megabyte of plain lines so
 * that the edge falls between its halves, then the halves: at `ESC[row;colH` with a status row
 * redrawn between them (with and without a line feed after each redraw: the context after a window
 * stops at its line's end), or on one line with a spinner in column 0 and `\r`; and with the edge
 * inside a two-byte character or between a CR and its LF. Recorded by a real
 * `derun run` through pipes and on a PTY (`stty -onlcr`, so the offsets are the pipes'), read back
 * through every text reader of the CLI and of `derun mcp` (and the screen beside them; the raw
 * readers' far look is the matrix's), counting 12-character slices of each token.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runDerun, tempDir, text } from "../helpers/cli.ts";
import { recordPty } from "../helpers/cli-recordings.ts";
import { connectAgent, type AgentClient } from "../helpers/agent.ts";
import { leakedPieces, randomText } from "../helpers/secrets.ts";

const r = randomText(5151);
const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** Where the text readers' first window ends (DEFAULT_LIMITS.windowBytes). */
const EDGE = 1 << 20;
const FILLER = "yes 'filler line of the build, nothing here' | head -c $N";
/** The second half at row 5, a status row redrawn 300 times (29 or 30 bytes each), the first half put before it. */
const positioned = (lf: boolean) =>
  `${FILLER}; printf '\\033[2J\\033[5;26H%s' "$B"; i=0; while [ $i -lt 300 ]; do ` +
  `printf '\\033[20;1Hprogress %05d of 300${lf ? "\\n" : ""}' $i; i=$((i+1)); done; printf '\\033[5;10Hghp_%s\\033[22;1H\\n' "$A"; exit 3`;
/**
 * As `positioned(false)`, the status row drawn as `line` (a printf format of its number): a row with
 * a two-byte character, or ending in CR LF, so that a window's edge can fall inside the character
 * or between the CR and the LF (each redraw is 22 or 23 bytes: the edge falls in the 200th).
 */
const redrawn = (line: string) =>
  `${FILLER}; printf '\\033[2J\\033[5;26H%s' "$B"; i=0; while [ $i -lt 300 ]; do ` +
  `printf '\\033[20;1H${line}' $i; i=$((i+1)); done; printf '\\033[5;10Hghp_%s\\033[22;1H\\n' "$A"; exit 3`;
/** The second half at column 16, a spinner in column 0 (2,500 redraws), then `\r` and the first half. */
const SPINNER =
  `${FILLER}; printf '\\n%16s%s' "" "$B"; i=0; while [ $i -lt 2500 ]; do printf '\\r%s' $((i % 10)); i=$((i+1)); done; ` +
  `printf '\\rghp_%s\\n' "$A"; exit 3`;

interface EdgePlant {
  readonly id: string;
  readonly script: string;
  /** How far before the edge the second half's bytes begin. */
  readonly before: number;
  readonly pty?: true;
  readonly halves: readonly [string, string];
}

const half = () => [r(12), r(24, letters)] as const;
const PLANTS: readonly EdgePlant[] = [
  { id: "edge-positioned-5k", script: positioned(false), before: 5000, halves: half() },
  { id: "edge-positioned-8k", script: positioned(false), before: 8300, halves: half() },
  { id: "edge-positioned-lf-5k", script: positioned(true), before: 5000, halves: half() },
  { id: "edge-positioned-lf-8k", script: positioned(true), before: 8500, halves: half() },
  { id: "edge-spinner", script: SPINNER, before: 4600, halves: half() },
  // B (24 bytes) and 35 bytes before the 200th redraw: its 14th byte (è's second) or 23rd (the LF).
  { id: "edge-in-utf8", script: redrawn("progr\u00e8ss %05d"), before: 35 + 13 + 22 * 200, halves: half() },
  { id: "edge-in-crlf", script: redrawn("progress %05d\\r\\n"), before: 35 + 22 + 23 * 200, halves: half() },
  { id: "edge-positioned-pty", script: positioned(false), before: 5000, pty: true, halves: half() },
  { id: "edge-positioned-lf-pty", script: positioned(true), before: 8500, pty: true, halves: half() },
];

const state = tempDir("derun-text-edges-");
const root = state.path;
let agent: AgentClient;

async function plant(p: EdgePlant): Promise<void> {
  const env = { N: String(EDGE - p.before), A: p.halves[0], B: p.halves[1] };
  if (p.pty) {
    const done = await recordPty(root, p.id, ["sh", "-c", `stty -onlcr; ${p.script}`], { env });
    expect({ id: p.id, status: done.exitCode }).toEqual({ id: p.id, status: 3 });
    return;
  }
  const done = await runDerun(["run", "--session-id", p.id, "--", "sh", "-c", p.script], { stateRoot: root, env });
  expect({ id: p.id, status: done.exitCode }).toEqual({ id: p.id, status: 3 });
}

beforeAll(async () => {
  await Promise.all(PLANTS.map(plant));
  agent = await connectAgent(root);
}, 60_000);

afterAll(async () => {
  await agent?.[Symbol.asyncDispose]();
  state[Symbol.dispose]();
});

/** Every answer about session `id`, by reader. */
async function answers(id: string): Promise<Array<[string, string]>> {
  const cli: string[][] = [
    ["cat", id],
    ["cat", id, "--view", "screen"],
    ["tail", "-n", "3", id],
    ["tail", "-f", id],
    ["why", id],
    ["grep", "-C", "1", "of 300|ghp|[*]", id],
  ];
  const out = await Promise.all(
    cli.map(async (args) => [args.join(" "), text((await runDerun(args, { stateRoot: root })).stdout)] as [string, string]),
  );
  const ask = async (what: string, name: string, args: Record<string, unknown>) => {
    const a = await agent.call(name, { session_id: id, ...args });
    out.push([what, `${a.text}\n${JSON.stringify(a.result ?? null)}`]);
    return a;
  };
  for (const view of ["text", "screen"]) await ask(`read_text ${view}`, "derun_read_text", { view, max_chars: 4_000_000 });
  await ask("read_text text tail", "derun_read_text", { view: "text", tail: 3 });
  for (let cursor = "0", i = 0; i < 100; i++) {
    const page = await ask("read_output text", "derun_read_output", { view: "text", cursor });
    if (page.result.eof || page.result.next_cursor === cursor) break;
    cursor = page.result.next_cursor;
  }
  await ask("wait_output until", "derun_wait_output", { cursor: "0", until: "[A-Za-z0-9]{12}", timeout_ms: 500 });
  await ask("search_output", "derun_search_output", { pattern: "of 300|ghp", context: 1 });
  await ask("last_failure", "derun_last_failure", { max_chars: 200_000 });
  return out;
}

describe("a token whose halves lie on either side of a text window's edge", () => {
  test("the recordings hold each half where the plant put it (so a clean table means masking)", async () => {
    for (const p of PLANTS) {
      const bytes = (await runDerun(["cat", p.id, "--view", "raw", "--no-redact"], { stateRoot: root })).stdout;
      // The edge inside è (its second byte first after it), between CR and LF.
      if (p.id === "edge-in-utf8") expect(Array.from(bytes.subarray(EDGE - 1, EDGE + 1))).toEqual([0xc3, 0xa8]);
      if (p.id === "edge-in-crlf") expect(Array.from(bytes.subarray(EDGE - 1, EDGE + 1))).toEqual([0x0d, 0x0a]);
      const raw = text(bytes);
      const at = raw.indexOf(p.halves[1]);
      expect({ id: p.id, second: at, first: raw.indexOf(`ghp_${p.halves[0]}`) > EDGE }).toEqual({
        id: p.id,
        second: EDGE - p.before + (p.script === SPINNER ? 17 : 11),
        first: true,
      });
    }
  }, 60_000);

  test("no reader shows 12 characters of either", async () => {
    const table: Record<string, Record<string, number>> = {};
    for (const p of PLANTS) {
      const secret = p.halves.join("");
      for (const [what, answer] of await answers(p.id)) {
        const n = leakedPieces(answer, secret).length;
        if (n > 0) (table[p.id] ??= {})[what] = ((table[p.id] ??= {})[what] ?? 0) + n;
      }
    }
    expect(table).toEqual({});
  }, 240_000);
});
