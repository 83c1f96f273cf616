/**
 * The failure view's prefilter (views/failure-scan.ts, transcript/failure-pass.ts) never changes
 * the answer: `derun why`'s report with lines skipped in the raw bytes is the report of the whole
 * pass, field for field, over real programs recorded through `derun run` (alone, and in the middle
 * of a long log), and over random transcripts built to trip it: a failure word split across
 * records and windows, inside an escape code, split by a colour code, redrawn away by a CR or
 * written over one, in UTF-8 text, in coloured lines, a line that starts with E, a secret masked
 * into `make: *** `, a PEM key's body, runs of repeated lines right before a failure line and at the
 * end, clears of the screen, two channels. And the prefilter does skip: a long log builds a small
 * part of its lines.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { openFileStore } from "../../src/file-store/index.ts";
import { findFailure } from "../../src/transcript/index.ts";
import { failureReport } from "../../src/transcript/failure-report.ts";
import type { FailurePassStats } from "../../src/transcript/failure-pass.ts";
import { sessionOptions, tempRoot } from "../helpers/harness.ts";
import { RECORDINGS, recordAll } from "../helpers/recordings.ts";
import { seededRandom } from "../helpers/seeded-random.ts";

const root = tempRoot();
const store = openFileStore({ root });
const encode = (s: string) => new TextEncoder().encode(s);
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const stats = (): FailurePassStats => ({ rendered: 0, skipped: 0, redone: 0 });

/** The report with the prefilter and without it (windows of `block` bytes), and what the prefilter did. */
async function bothWays(id: string, block?: number) {
  const t = await findFailure(store, { session_id: id }, block);
  const fast = stats();
  const prefiltered = await failureReport(t, 4000, undefined, undefined, { stats: fast });
  const whole = await failureReport(t, 4000, undefined, undefined, { prefilter: false });
  return { prefiltered, whole, stats: fast };
}

/** Writes `bytes` as session `id`, in records cut by `cut`, on the channel `channel` says. */
async function write(id: string, bytes: Uint8Array, cut: () => number, channel: () => "stdout" | "stderr" = () => "stdout") {
  await using writer = await store.create(sessionOptions(id));
  await writer.started({ pid: process.pid, transportMode: "pipe", ttyAttached: false });
  for (let at = 0; at < bytes.length; ) {
    const n = Math.max(1, cut());
    writer.append(channel(), bytes.subarray(at, at + n));
    at += n;
  }
  await writer.finalize({ state: "exited", exit_code: 1 });
}

/** Plain log lines, numbered from `from` (no failure word: what the prefilter skips). */
const filler = (from: number, count: number): string =>
  Array.from(
    { length: count },
    (_, i) => `2026-11-26 12:00:${String((from + i) % 60).padStart(2, "0")} INFO worker handled request ${from + i}\n`,
  ).join("");

/** Pieces that trip a prefilter that reads bytes as text too simply; each a line or part of one. */
const TRICKS = [
  "2026-11-26 ERROR db: connection refused\n",
  "err\x1b[1mor: split by a colour code\n",
  "Err\x1b[31m\x1b[1mor\x1b[0m: two codes between\n",
  "ERROR\rINFO  redrawn over by a CR\n",
  "xxxxx\rError: written over a redraw\n",
  "error\x1b[2K\rwiped: nothing failed here\n",
  "\x1b]0;ERROR in a title\x07title only\n",
  "\x1b[31mFAIL\x1b[0m src/a.test.ts\n",
  "\x1b[32m  ✓\x1b[0m passes\n",
  "  ✗ fails in UTF-8\n",
  " × also fails (3 ms)\n",
  "  ● math › adds\n",
  "café ERROR après\n",
  "caf\xc3\xa9rror not a word\n",
  "E       assert 2 == 3\n",
  "\x1b[1mE   \x1b[0massert in bold\n",
  "e\tlower e and a tab\n",
  "make: ghp_abcdefghijklmnopqrstuvwxyz0123456789 done\n",
  "make: *** [all] Error 2\n",
  " ELIFECYCLE  token=abcdefghijklmnopqrstuvwx1234\n",
  "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAabc\nERROR inside the key body\n-----END RSA PRIVATE KEY-----\n",
  "password=hunter2hunter2 and an ERROR after it\n",
  `${"a".repeat(299)}ERROR past the clip\n${"a".repeat(299)}ok past the clip\n`,
  "\x1b[2J\x1b[Hcleared, then a run\n",
  "a line cut in\x1b",
  "[31m the middle of a code\n",
  "\u009b31mC1 CSI\n",
  "bell\x07 and BS er\brror\n",
  "traceback (most recent call last):\n",
  "Segmentation fault (core dumped)\n",
  "./main.go:5:2: undefined: x\n",
];

/**
 * A long run of one repeated line: the failure view counts repeats, so a skip must not cut one. The
 * same bytes (a blank line, a text), or the same text from other bytes (a colour code here and not
 * there), which the prefilter cannot tell from distinct lines: then only the whole pass can answer.
 */
function repeats(rand: () => number): string {
  const n = 20 + Math.floor(rand() * 400);
  const r = rand();
  if (r < 0.3) return "\n".repeat(n);
  if (r < 0.6) return "waiting for the server...\n".repeat(n);
  return "\x1b[2mwaiting\x1b[0m for the server...\nwaiting for the server...\n".repeat(n);
}

function adversarial(rand: () => number): string {
  const out: string[] = [];
  let line = 0;
  const parts = 30 + Math.floor(rand() * 60);
  for (let k = 0; k < parts; k++) {
    const r = rand();
    if (r < 0.45) {
      const n = Math.floor(rand() * 3000);
      out.push(filler(line, n));
      line += n;
    } else if (r < 0.55) out.push(repeats(rand));
    else if (r < 0.6) out.push(`\x1b[32m${filler(line, 200).replaceAll("INFO", "INFO\x1b[0m")}`);
    else out.push(TRICKS[Math.floor(rand() * TRICKS.length)]!);
  }
  // Half of them end in a run of repeats or of filler, with or without the last LF.
  if (rand() < 0.5) out.push(repeats(rand));
  if (rand() < 0.3) out.push("no LF at the end");
  return out.join("");
}

describe("the prefiltered answer is the whole pass's", () => {
  test("random transcripts built to trip it, records and windows cut anywhere, one channel or two", async () => {
    let skipped = 0;
    let redone = 0;
    for (let seed = 1; seed <= 24; seed++) {
      const rand = seededRandom(seed);
      const bytes = encode(adversarial(rand));
      const id = `adv${seed}`;
      const twoChannels = seed % 4 === 0;
      await write(
        id,
        bytes,
        () => (rand() < 0.5 ? 1 + Math.floor(rand() * 64) : Math.floor(rand() * 200_000)),
        () => (twoChannels && rand() < 0.3 ? "stderr" : "stdout"),
      );
      // Windows of 1 MiB (the default) or small ones, which end inside lines, codes and characters.
      const block = seed % 3 === 0 ? undefined : 4096 + Math.floor(rand() * 100_000);
      const { prefiltered, whole, stats } = await bothWays(id, block);
      expect([seed, prefiltered]).toEqual([seed, whole]);
      skipped += stats.skipped;
      redone += stats.redone;
    }
    // The comparisons saw skips (else they prove nothing), and the fallback taken at least once.
    expect(skipped).toBeGreaterThan(100_000);
    expect(redone).toBeGreaterThan(0);
  }, 120_000);

  test("the tricks one by one, each in the middle of a long log", async () => {
    for (const [k, trick] of TRICKS.entries()) {
      const id = `trick${k}`;
      await write(id, encode(filler(0, 5000) + trick + filler(5000, 5000)), () => 1 << 16);
      const { prefiltered, whole, stats } = await bothWays(id);
      expect([trick, prefiltered]).toEqual([trick, whole]);
      expect(stats.skipped).toBeGreaterThan(5000);
    }
  }, 60_000);
});

describe("real recorded programs", () => {
  const work = fs.mkdtempSync(path.join(root, "..", "failure-prefilter-work-"));
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
  beforeAll(async () => {
    await recordAll(root, work);
  }, 120_000);

  test("each as recorded, and each in the middle of a long log", async () => {
    for (const { id } of RECORDINGS) {
      const { prefiltered, whole } = await bothWays(id);
      expect([id, prefiltered]).toEqual([id, whole]);
      const recorded = fs.readFileSync(path.join(root, "sessions", id, "output.bin"));
      const padded = `padded-${id}`;
      await write(padded, new Uint8Array([...encode(filler(0, 4000)), ...recorded, ...encode(filler(4000, 4000))]), () => 4096);
      const inLog = await bothWays(padded);
      expect([padded, inLog.prefiltered]).toEqual([padded, inLog.whole]);
      expect(inLog.stats.skipped).toBeGreaterThan(3000);
    }
  }, 60_000);
});

test("the prefilter skips: a long log builds a small part of its lines", async () => {
  const log = filler(0, 60_000) + TRICKS[0] + filler(60_000, 60_000);
  await write("long", encode(log), () => 1 << 16);
  const { prefiltered, whole, stats } = await bothWays("long");
  expect(prefiltered).toEqual(whole);
  expect(prefiltered.lines.some((l) => l.includes("ERROR db: connection refused"))).toBe(true);
  expect(stats.redone).toBe(0);
  expect(stats.skipped).toBeGreaterThan(110_000);
  // Each 1 MiB window's first and last lines, and the error line's neighbours: about 2% of the bytes.
  expect(stats.rendered).toBeLessThan(log.length / 20);
});
