/**
 * A token's halves put together on one line by the terminal, planted through a real `derun run` on a
 * real PTY (80x24) and read by `derun cat` (raw, text, screen), `derun show` and derun_read_output
 * (the SDK's client over stdio): the shapes the assembled pass's fast ways take (src/views/line-redraws.ts: a
 * shorter redraw over a row of one run; SGR and `ESC[0K` after it) and one they give back to the grid
 * (a TAB before the second half). Each read must hold no 12-character slice of the token's random
 * part, and its bytes replayed on a terminal of the session's size (@xterm/headless) must not show
 * one either; the recording itself (`--no-redact`) does show the token, or the plant would prove
 * nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Terminal } from "@xterm/headless";
import { runDerun, tempDir, text } from "../helpers/cli.ts";
import { connectAgent, recordInPty, type AgentClient } from "../helpers/agent.ts";
import { leakedPieces, randomText } from "../helpers/secrets.ts";

const COLS = 80;
const ROWS = 24;
const r = randomText(4142);
const state = tempDir("derun-line-redraw-plants-");
const work = tempDir("derun-line-redraw-plants-work-");
let agent: AgentClient;

interface Plant {
  readonly id: string;
  readonly script: string;
  readonly A: string;
  readonly B: string;
  /** The token stays on the screen at the end (not erased right after it was put together). */
  readonly staysShown: boolean;
}

/**
 * Each half too short for a rule on its own (`ghp_` and 12 characters; 24 with ` done` after them,
 * not a line of their own), so only the line put together shows the token.
 */
const PLANTS: readonly Plant[] = [
  // 16 spaces, B and ` done` (one run of bytes), then `\r` and the shorter ghp_A over it: the row reads the token.
  { id: "one-run", script: 'printf \'%16s%s done\\rghp_%s\\n\' "" "$B" "$A"', A: r(12), B: r(24), staysShown: true },
  // The same with colours around the first half, and B erased right after (`ESC[0K`): the look before the erase.
  {
    id: "sgr-el0",
    script: 'printf \'%16s%s done\\r\\033[1;32mghp_\\033[38:5:2m%s\\033[m\\033[0K ok\\n\' "" "$B" "$A"',
    A: r(12),
    B: r(24),
    staysShown: false,
  },
  // Two TABs (the cursor to column 16) before B: not the fast way's language, the grid's.
  { id: "tab", script: 'printf \'\\t\\t%s done\\rghp_%s\\n\' "$B" "$A"', A: r(12), B: r(24), staysShown: true },
  // B alone on its line (its end at the `\r`): a private key's body line to the rules, masked on its
  // own; the replay must still see ghp_A before B's letters, not before their stars (leak 1).
  { id: "masked-piece", script: 'printf \'%16s%s\\rghp_%s\\n\' "" "$B" "$A"', A: r(12), B: r(24), staysShown: true },
  // The same with a `/` in B: the key's body line is masked whole, the token (ghp_A and B up to the
  // `/`) takes in only its head; the token's own bytes (ghp_A) must still be starred.
  { id: "masked-piece-head", script: 'printf \'%16s%s\\rghp_%s\\n\' "" "$B" "$A"', A: r(12), B: `${r(12)}/${r(11)}`, staysShown: true },
  // The whole token, then B erased at once (`ESC[0K` right after ghp_A, no colour): leak 2's shape.
  { id: "el0", script: 'printf \'%16s%s done\\r\\033[1mghp_%s\\033[0K ok\\n\' "" "$B" "$A"', A: r(12), B: r(24), staysShown: false },
  // B at column 40, then 24 `€`s (72 bytes, 24 cells) and ghp_A over the blanks before it, erased at
  // once: shorter than the row in cells, not in bytes. Counted in bytes, the redraw passed for one
  // that covered the row, and nothing replayed the moment the row read the token.
  {
    id: "utf8-stretch",
    script: `printf '%40s%s done\\r${"€".repeat(24)}ghp_%s\\033[K\\n' "" "$B" "$A"`,
    A: r(12),
    B: r(24),
    staysShown: false,
  },
  // The same shape with DELs after ghp_A (drawn nowhere, counted as bytes they stretched the redraw).
  {
    id: "del-stretch",
    script: `printf '%16s%s done\\rghp_%s${"\\177".repeat(40)}\\033[K\\n' "" "$B" "$A"`,
    A: r(12),
    B: r(24),
    staysShown: false,
  },
  // B (4 letters) drawn after a move to column 18 (ESC[18C, or ESC[19G), then ghp_A (18 cells) over the
  // blanks before it, erased at once: the row reached 22 cells, not the 4 of text it was drawn with.
  { id: "cuf-reach", script: 'printf \'\\033[18C%s done\\rghp_%s\\033[K\\n\' "$B" "$A"', A: r(14), B: r(4), staysShown: false },
  { id: "cha-reach", script: 'printf \'\\033[19G%s done\\rghp_%s\\033[K\\n\' "$B" "$A"', A: r(14), B: r(4), staysShown: false },
];

beforeAll(async () => {
  for (const p of PLANTS) {
    // The halves read from files: in the environment or the command line derun would know them as
    // values of their own (the environment's values are masked wherever they stand alone).
    writeFileSync(join(work.path, `${p.id}.a`), p.A);
    writeFileSync(join(work.path, `${p.id}.b`), p.B);
    const script = `A=$(cat ${p.id}.a); B=$(cat ${p.id}.b); ${p.script}`;
    const done = await recordInPty(state.path, p.id, ["sh", "-c", script], { cols: COLS, rows: ROWS, cwd: work.path });
    expect({ id: p.id, done }).toEqual({ id: p.id, done: { exitCode: 0, signalCode: null } });
  }
  agent = await connectAgent(state.path);
}, 120_000);

afterAll(async () => {
  await agent?.[Symbol.asyncDispose]();
  state[Symbol.dispose]();
  work[Symbol.dispose]();
});

const derun = async (...args: string[]) => {
  const done = await runDerun(args, { stateRoot: state.path });
  expect({ args, code: done.exitCode }).toEqual({ args, code: 0 });
  return text(done.stdout);
};

/** Every screen a terminal of the session's size shows replaying `raw` a byte at a time, joined: a token shown for a moment is in it. */
async function screensOf(raw: string): Promise<string> {
  const terminal = new Terminal({ cols: COLS, rows: ROWS, allowProposedApi: true });
  const seen = new Set<string>();
  const screen = () => {
    const lines: string[] = [];
    for (let row = 0; row < ROWS; row++) lines.push(terminal.buffer.active.getLine(row)?.translateToString(true) ?? "");
    return lines.join("\n");
  };
  for (const ch of raw) {
    await new Promise<void>((resolve) => terminal.write(ch, resolve));
    seen.add(screen());
  }
  terminal.dispose();
  return [...seen].join("\n");
}

/** derun_read_output's pages from the start (`args`: the page size), their data joined and each page whole. */
async function readOutput(id: string, args: Record<string, unknown>): Promise<{ data: string; pages: string[] }> {
  let cursor = "0";
  let data = "";
  const pages: string[] = [];
  for (let i = 0; i < 500; i++) {
    const a = await agent.call("derun_read_output", { session_id: id, cursor, ...args });
    expect(a.isError).toBe(false);
    pages.push(JSON.stringify([a.text, a.result]));
    for (const chunk of a.result.chunks ?? []) data += chunk.data ?? "";
    if (a.result.eof || a.result.next_cursor === cursor) break;
    cursor = a.result.next_cursor;
  }
  return { data, pages };
}

describe.each(PLANTS)("a token put together on its line by the terminal: $id", (p) => {
  const secret = p.A + p.B;

  test("the recording holds it in pieces, which the terminal shows whole", async () => {
    const raw = await derun("cat", p.id, "--view", "raw", "--no-redact");
    expect(raw).toContain(p.A);
    expect(raw).toContain(p.B);
    expect(raw).not.toContain(secret);
    expect(leakedPieces(await screensOf(raw), secret).length).toBeGreaterThan(0);
  });

  test("derun cat --view raw masks it, and its replay shows none of it", async () => {
    const raw = await derun("cat", p.id, "--view", "raw");
    expect(leakedPieces(raw, secret)).toEqual([]);
    expect(leakedPieces(await screensOf(raw), secret)).toEqual([]);
    // The same length as recorded: only bytes behind the token became `*`.
    expect(raw.length).toBe((await derun("cat", p.id, "--view", "raw", "--no-redact")).length);
    if (p.staysShown) expect((await screensOf(raw)).split("\n").some((l) => l.startsWith("*".repeat(40)))).toBe(true);
  });

  test("derun show (the command line: the halves came from files), the text and screen views hold none of it", async () => {
    expect(leakedPieces(await derun("show", p.id), secret)).toEqual([]);
    // A token put together and its second half erased at once (`ESC[0K`) leaves `ghp_` and A on the
    // line the text and screen views show: masked there too, as the look before the erase showed the token.
    for (const view of ["text", "screen"]) {
      const shown = await derun("cat", p.id, "--view", view);
      expect({ view, leaks: leakedPieces(shown, secret) }).toEqual({ view, leaks: [] });
      // The text view keeps a TAB as one cell, so ghp_A covers it and 14 of B's: its line is 26 stars and ` done`.
      const stars = p.id === "tab" && view === "text" ? 26 : p.staysShown ? 40 : 16;
      expect(shown).toContain("*".repeat(stars));
    }
  });

  test("derun_read_output, whole and in pages of 37 bytes, holds none of it", async () => {
    for (const args of [{}, { max_bytes: 37 }]) {
      const { data, pages } = await readOutput(p.id, args);
      expect(data.length).toBeGreaterThan(secret.length);
      expect({ args, leaks: leakedPieces(data, secret) }).toEqual({ args, leaks: [] });
      for (const page of pages) expect({ args, leaks: leakedPieces(page, secret) }).toEqual({ args, leaks: [] });
      expect({ args, leaks: leakedPieces(await screensOf(data), secret) }).toEqual({ args, leaks: [] });
    }
  });
});
