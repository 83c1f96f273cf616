/**
 * Search's literal shortcut (views/literal-scan.ts) never loses a match: over random transcripts
 * written with the store's own writer (two channels interleaved, records cut anywhere, UTF-8
 * characters split between records, the literal split by colour codes, a CR redraw, a backspace,
 * an OSC title, BEL, C1 controls), the search that skips to candidate lines answers exactly what
 * the search through the whole text view answers: every match, its line number, column, context,
 * and the count of lines searched; per channel and merged, with and without context.
 */
import { afterAll, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import { openFileStore } from "../../src/file-store/index.ts";
import { compilePattern, openTranscript, searchTranscript, type SearchPattern } from "../../src/transcript/index.ts";
import { sessionOptions, tempRoot } from "../helpers/harness.ts";
import { seededRandom } from "../helpers/seeded-random.ts";

const SEEDS = 40;
const root = tempRoot();
const store = openFileStore({ root });
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const PARTS = [
  "error",
  "err",
  "or",
  "ror",
  "e",
  "x",
  "plain text ",
  "é",
  "ü",
  "—",
  "\n",
  "\n",
  "\n",
  "\r\n",
  "\r\n",
  "\t",
  "\x1b[31m",
  "\x1b[0m",
  "err\x1b[1mor",
  "xrror\re",
  "erx\bror",
  "\x1b]0;error title\x07",
  "\x07",
  "\u0085",
  "\u009b31m",
  "\r",
  "\x1b[2K",
  "\x1b[D",
  "\x00",
];

function transcript(rand: () => number, parts: number): string[] {
  const out: string[] = [];
  for (let k = 0; k < parts; k++) out.push(PARTS[Math.floor(rand() * PARTS.length)]!);
  return out;
}

const bare = (p: SearchPattern): SearchPattern => {
  const { needle: _, ...rest } = p;
  return rest;
};

describe("the literal shortcut finds what the whole view finds", () => {
  test("random transcripts, two channels, records cut anywhere", async () => {
    const patterns = [
      compilePattern("error", { literal: true }),
      compilePattern("err(or)?"),
      compilePattern("r+o"),
      compilePattern("title"),
      compilePattern("é"),
      compilePattern("rror$"),
    ];
    for (const p of patterns) expect(p.needle).toBeDefined();
    let compared = 0;
    let matched = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      const rand = seededRandom(seed);
      const id = `s${seed}`;
      {
        await using writer = await store.create(sessionOptions(id));
        await writer.started({ pid: process.pid, transportMode: "pipe", ttyAttached: false });
        // Some past the 16 KiB after which a dense piece is viewed whole.
        const bytes = new TextEncoder().encode(transcript(rand, seed % 5 === 0 ? 6000 : 400).join(""));
        // Records cut at any byte (UTF-8 characters too), on either channel.
        for (let at = 0; at < bytes.length; ) {
          const n = 1 + Math.floor(rand() * 40);
          writer.append(seed % 5 === 0 || rand() < 0.7 ? "stdout" : "stderr", bytes.subarray(at, at + n));
          at += n;
        }
        await writer.finalize({ state: "exited", exit_code: 0 });
      }
      for (const pattern of patterns) {
        for (const channel of [undefined, "stdout", "stderr"] as const) {
          const context = seed % 3;
          // A small block: windows and pieces end inside lines, sequences and characters.
          const t = await openTranscript(store, id, undefined, seed % 5 === 0 ? 1 << 20 : 64 + seed * 7);
          const options = { context, maxMatches: 1000, channel, deadline: Infinity };
          const fast = await searchTranscript(t, { ...options, pattern });
          const whole = await searchTranscript(t, { ...options, pattern: bare(pattern) });
          expect([seed, pattern.source, channel, fast]).toEqual([seed, pattern.source, channel, whole]);
          compared++;
          matched += whole.match_count;
        }
      }
    }
    expect(compared).toBe(SEEDS * 6 * 3);
    expect(matched).toBeGreaterThan(1000); // the comparison saw matches, not only their absence
  });

  test("a literal split by colour codes or redrawn by a CR is found, at its line", async () => {
    {
      await using writer = await store.create(sessionOptions("split"));
      writer.append(
        "stdout",
        new TextEncoder().encode(
          "one\nerr\x1b[1mor two\nthree\nxrror\reerror\nfive\nerx\bror\n\x1b[32mgreen\x1b[0m\ne\x1b[31m\x1b[1mrror\x1b[0m!\n",
        ),
      );
      await writer.finalize({ state: "exited", exit_code: 0 });
    }
    const t = await openTranscript(store, "split");
    const found = await searchTranscript(t, {
      pattern: compilePattern("error", { literal: true }),
      context: 0,
      maxMatches: 10,
      deadline: Infinity,
    });
    expect(found.matches.map((m) => [m.line, m.text])).toEqual([
      [2, "error two"],
      [4, "eerror"],
      [6, "error"],
      [8, "error!"],
    ]);
    expect(found.lines_searched).toBe(8);
  });
});
