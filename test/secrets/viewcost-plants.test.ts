/**
 * Plants for the review of the viewcost branch (its quick checks stop early, check records in one
 * buffer as one run, leave written-over lines wholly in the context alone; its grid finds printable
 * runs a word at a time): each a way those shortcuts could let a secret through. Recorded by a real
 * `derun run` through pipes and on a real PTY, read back through `derun cat` (text, screen, raw),
 * `derun export`, and `derun_read_output` paged in small windows over stdio with the SDK's client.
 * A leak is a 12-character slice of a plant's random part in an answer; the table must be empty.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connectAgent, type AgentClient } from "../helpers/agent.ts";
import { runDerun, tempDir, text } from "../helpers/cli.ts";
import { recordPty } from "../helpers/cli-recordings.ts";
import { leakedPieces, randomText } from "../helpers/secrets.ts";

const r = randomText(4247);
const state = tempDir("derun-viewcost-plants-");
const root = state.path;
let agent: AgentClient;

interface Plant {
  readonly id: string;
  readonly script: string;
  readonly env: Record<string, string>;
  readonly secret: string;
  readonly pipeOnly?: true;
}

/** 40 plain lines: windows of 13 and 37 bytes fall in them, and the context around a window holds them. */
const FILL = "i=1; while [ $i -le 40 ]; do printf 'line %03d of the build, nothing secret\\n' $i; i=$((i+1)); done; ";
/** Halves placed by absolute positions, the second first (the grid alone puts them together). */
const PLACED = 'printf \'\\033[5;24H%s ok\\033[5;10Hghp_%s\\033[7;1H\\n\' "$B" "$A"';
/** A wrong tail backspaced over and the rest written on it; `pre` and `post` around it on the line. */
const backspaced = (pre: string, post: string) => `printf '${pre}key ghp_%sWRONG\\b\\b\\b\\b\\b%s${post}\\n' "$A" "$B"`;

function halves(id: string, script: string, pipeOnly?: true): Plant {
  const [a, b] = [r(10), r(26)];
  return { id, script, env: { A: a, B: b }, secret: a + b, ...(pipeOnly ? { pipeOnly } : {}) };
}

function whole(id: string, script: string): Plant {
  const p = r(36);
  return { id, script, env: { P: p }, secret: p };
}

const PLANTS: readonly Plant[] = [
  // A `\r` (goes back: the text readers' check stops there) well before a write that moves rows.
  halves("cr-then-moves", `${FILL}printf 'step 1%%\\r'; ${FILL}${PLACED}; ${FILL}`),
  halves("cr-same-write-moves", `printf 'x\\ry'; ${PLACED}`),
  // C1 CSIs (C2 9B), looked for last once something went back.
  halves("c1-after-cr", 'printf \'x\\ry\\302\\2335;24H%s ok\\302\\2335;10Hghp_%s\\302\\2337;1H\\n\' "$B" "$A"'),
  // stderr goes back, stdout moves rows: the runs of one channel never take in the other's.
  halves("stderr-back-stdout-moves", `printf 'pct 1\\rpct 2\\r' >&2; ${PLACED}; printf 'pct 3\\r\\n' >&2`),
  {
    id: "channel-between",
    script: "printf 'token ghp_%s' \"$A\"; printf 'warn\\r' >&2; printf '%s end\\rdone, all ok: \\n' \"$B\"",
    ...(() => {
      const t = r(36);
      return { env: { A: t.slice(0, 14), B: t.slice(14) }, secret: t };
    })(),
    // On a PTY both are one stream: the token is never whole on the screen there.
    pipeOnly: true,
  },
  // Written-over lines across a small window's edges and across the context's.
  whole("written-over-edge", `${FILL}printf '%s ghp_%s %s\\rdone: \\n' "$F" "$P" "$F"; ${FILL}`),
  whole(
    "written-over-after-edge",
    "F=$(printf '%4090s' '' | tr ' ' x); printf 'a\\n%s ghp_%s' \"$F\" \"$P\"; printf '%s\\rdone: \\n' \"$F\"",
  ),
  // A BS before the first escape or CR (found natively), after one (found in the loop), and over all.
  halves("bs-before-esc", backspaced("", "\\033[0m")),
  halves("bs-after-esc", 'printf \'key ghp_%s\\033[0mWRONG\\b\\b\\b\\b\\b%s\\n\' "$A" "$B"'),
  halves("bs-after-cr", backspaced("x\\r", "\\033[0m")),
  halves("bs-over", backspaced("\\033[1m\\033[0m", "\\rdone, all ok: ")),
  // DEL in an ASCII run (the word-at-a-time scan), then written over.
  whole("del-then-over", "printf 'ghp_%s\\177\\177\\rdone, all ok: \\n' \"$P\""),
  whole("c1-csi-back", "printf 'ghp_%s\\302\\23320D\\302\\233K\\n' \"$P\""),
  // A NUL and a DEL inside a token (drawn as nothing), in the small windows of the text view too.
  whole("silent-inside", 'printf \'key ghp_%.12s\\000%.12s\\177%s\\n\' "$P" "${P#????????????}" "${P#????????????????????????}"'),
  // An ESC that ends a write, its CSI in the next one.
  halves("esc-at-end-of-write", "printf 'key ghp_%sWRONG\\033' \"$A\"; printf '[5D%s\\n' \"$B\""),
];

/** Each plant through pipes, and on a PTY unless `pipeOnly`. */
const SESSIONS = PLANTS.flatMap((p) => [{ ...p, pty: false }, ...(p.pipeOnly ? [] : [{ ...p, id: `${p.id}-pty`, pty: true }])]);

beforeAll(async () => {
  const record = async (s: (typeof SESSIONS)[number]) => {
    if (s.pty) return (await recordPty(root, s.id, ["sh", "-c", s.script], { env: s.env })).exitCode;
    return (await runDerun(["run", "--session-id", s.id, "--", "sh", "-c", s.script], { stateRoot: root, env: s.env })).exitCode;
  };
  for (let i = 0; i < SESSIONS.length; i += 4) {
    const codes = await Promise.all(SESSIONS.slice(i, i + 4).map(record));
    expect(codes).toEqual(codes.map(() => 0));
  }
  agent = await connectAgent(root);
}, 90_000);

afterAll(async () => {
  await agent?.[Symbol.asyncDispose]();
  state[Symbol.dispose]();
});

/** Every reader's answers about session `id`, by reader: the CLI's and the paged MCP reads. */
async function answers(id: string): Promise<Array<[string, string]>> {
  const runs = [
    ["cat", id],
    ["cat", id, "--view", "screen"],
    ["cat", id, "--view", "raw"],
    ["export", id],
  ];
  const out = await Promise.all(
    runs.map(async (args) => {
      const done = await runDerun(args, { stateRoot: root });
      return [args.join(" "), text(done.stdout) + text(done.stderr)] as [string, string];
    }),
  );
  for (const args of [
    { max_bytes: 13 },
    { max_bytes: 37 },
    { max_bytes: 500 },
    { encoding: "base64", max_bytes: 37 },
    { view: "text", max_bytes: 13 },
    { view: "text", max_bytes: 37 },
  ]) {
    let cursor = "0";
    for (let i = 0; i < 2000; i++) {
      const a = await agent.call("derun_read_output", { session_id: id, cursor, ...args });
      const decoded = (a.result?.chunks ?? []).filter((c: any) => c.data_base64 !== undefined);
      // Each page is an answer of its own.
      out.push([
        `read_output ${JSON.stringify(args)}`,
        [a.text, ...decoded.map((c: any) => Buffer.from(c.data_base64, "base64").toString("latin1"))].join("\n"),
      ]);
      if (a.result.eof || a.result.next_cursor === cursor) break;
      cursor = a.result.next_cursor;
    }
  }
  return out;
}

describe("the viewcost review's plants", () => {
  test("the recordings hold every planted secret", async () => {
    const missing: string[] = [];
    for (const s of SESSIONS) {
      const raw = await runDerun(["cat", s.id, "--view", "raw", "--no-redact"], { stateRoot: root });
      if (leakedPieces(text(raw.stdout), s.secret).length === 0) missing.push(s.id);
    }
    expect(missing).toEqual([]);
  }, 60_000);

  test("no reader shows 12 characters of a planted secret", async () => {
    const table: Record<string, Record<string, number>> = {};
    for (const s of SESSIONS)
      for (const [what, answer] of await answers(s.id)) {
        const n = leakedPieces(answer, s.secret).length;
        if (n > 0) (table[s.id] ??= {})[what] = ((table[s.id] ??= {})[what] ?? 0) + n;
      }
    expect(table).toEqual({});
  }, 120_000);
});
