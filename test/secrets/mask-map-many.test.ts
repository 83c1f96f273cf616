/**
 * A session with more than 2^20 masked ranges (issue 38, class 9; src/transcript/mask-ranges.ts).
 * A map held its ranges as two arrays of numbers, at most 2^20 of them, and a session with more
 * was searched without one: a guess inside a secret cost more than a miss again. The map now holds
 * its ranges encoded as its file does (2 to 6 bytes a range, up to 32 MiB of them), and a session
 * with more still is searched with every line masked before it is tested. A real `derun run` writes
 * a secret-named variable's value 1.1 million times (12 MB: a file of short tokens, not a long
 * run); `derun grep` builds a map of all of them, keeps it, and a right and a wrong guess at the
 * value's first characters find nothing in the same time, with that map and with one that says it
 * holds too many.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import * as fs from "node:fs";
import { join } from "node:path";
import { runDerun, tempDir, text } from "../helpers/cli.ts";
import { randomText } from "../helpers/secrets.ts";
import { encodeMaskMap, mapKey } from "../../src/transcript/mask-map-file.ts";
import { redactorFor } from "../../src/secrets/redactor.ts";

const VALUE = `${randomText(6262)(11)}7`;
const LINES = 11_000;
const PER_LINE = 100;
const state = tempDir("derun-maskmap-many-");
const map = join(state.path, "sessions", "many", "mask-map.bin");

beforeAll(async () => {
  const script = `yes "$(for i in $(seq ${PER_LINE}); do printf '%s ' "$DEPLOY_TOKEN"; done)" | head -n ${LINES}; echo the end`;
  const run = await runDerun(["run", "--session-id", "many", "--", "sh", "-c", script], {
    stateRoot: state.path,
    env: { DEPLOY_TOKEN: VALUE },
  });
  expect(run.exitCode).toBe(0);
}, 60_000);

afterAll(() => state[Symbol.dispose]());

const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!;

/** `derun grep -c -F` of `pattern` over the session named `times` times (searches in one process): its time. */
async function timed(pattern: string, expected: string, times = 3): Promise<number> {
  const started = performance.now();
  const done = await runDerun(["grep", "-c", "-F", pattern, ...Array(times).fill("many")], { stateRoot: state.path });
  const ms = performance.now() - started;
  expect({ pattern, status: done.exitCode, out: text(done.stdout) }).toEqual({
    pattern,
    status: expected === "0" ? 1 : 0,
    out: times === 1 ? `${expected}\n` : `many:${expected}\n`.repeat(times),
  });
  return ms;
}

/** Medians of right and wrong guesses at the value's first 8 characters, taken in turn. */
async function guesses(rounds: number, times: number): Promise<{ right: number; wrong: number }> {
  const right: number[] = [];
  const wrong: number[] = [];
  for (let i = 0; i < rounds; i++) {
    right.push(await timed(VALUE.slice(0, 8), "0", times));
    wrong.push(await timed(`${VALUE.slice(0, 7)}${VALUE[7] === "X" ? "Y" : "X"}`, "0", times));
  }
  return { right: median(right), wrong: median(wrong) };
}

test("a map of 1.1 million ranges is made, kept whole, and a guess costs what a miss does", async () => {
  expect(fs.statSync(join(state.path, "sessions", "many", "output.bin")).size).toBeGreaterThan(LINES * PER_LINE * 11);
  // The first grep builds the map, whatever its pattern.
  const first = await runDerun(["grep", "-c", "-F", "the end", "many"], { stateRoot: state.path });
  expect({ status: first.exitCode, out: text(first.stdout) }).toEqual({ status: 0, out: "1\n" });
  const file = fs.readFileSync(map);
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  // Flags 0 (not "more than a map keeps"), every range in it: two bytes each here.
  expect({ flags: view.getUint32(12, true), ranges: view.getUint32(56, true) }).toEqual({ flags: 0, ranges: LINES * PER_LINE });
  expect(file.length).toBe(96 + 2 * LINES * PER_LINE);
  const made = fs.statSync(map).mtimeMs;
  const { right, wrong } = await guesses(3, 3);
  expect(right).toBeLessThan(3 * Math.max(wrong, 20));
  // Read back, not made again.
  expect(fs.statSync(map).mtimeMs).toBe(made);
  // Text between the secrets is still found.
  expect(await timed("the end", "1")).toBeGreaterThan(0);
}, 120_000);

test("a map that says it holds too many: every line is masked first, a guess still costs what a miss does", async () => {
  const meta = JSON.parse(text(fs.readFileSync(join(state.path, "sessions", "many", "meta.json"))));
  const key = mapKey(redactorFor(meta).key!, "many", meta.started_at);
  const covered = fs.statSync(join(state.path, "sessions", "many", "output.bin")).size;
  fs.writeFileSync(map, encodeMaskMap({ ranges: new Uint8Array(0), count: 0, covered, full: true }, key), { mode: 0o600 });
  // Slower (each line masked as text: seconds for this session), so one search a guess.
  const { right, wrong } = await guesses(1, 1);
  expect(right).toBeLessThan(3 * Math.max(wrong, 20));
}, 180_000);
