/**
 * The mask maps a process keeps are bounded in bytes (issue 37 item 6: `derun mcp` under 100 MB
 * after reading 1 GiB). A map now holds up to 32 MiB of encoded ranges in a buffer up to twice that
 * (src/transcript/mask-ranges.ts), and 64 were kept whatever they held: gigabytes. Past the budget
 * the least recently searched maps are dropped and read again from mask-map.bin when searched again.
 * Real sessions written with the store's writer, each with 40,000 GitHub tokens (a map of 80 KB in
 * a 128 KiB buffer), searched as `derun mcp` does with a budget lowered to 300 KiB (the real one is
 * 32 MiB: reaching it takes millions of secrets): the maps held stay under it, a dropped map is read
 * back from its file (not made again), and what is found, and masked, is the same.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import * as fs from "node:fs";
import { join } from "node:path";
import { openFileStore } from "../../src/file-store/index.ts";
import { compilePattern, keepMaskMaps, openTranscript, searchTranscript } from "../../src/transcript/index.ts";
import { maskMapsBudget, maskMapsHeld } from "../../src/transcript/mask-map.ts";
import { sessionOptions, tempRoot } from "../helpers/harness.ts";
import { SECRETS } from "../helpers/secrets.ts";

const TOKENS = 40_000;
const BUDGET = 300 * 1024;
const IDS = ["b1", "b2", "b3", "b4"];
const root = tempRoot();
const store = openFileStore({ root });
let was = 0;

beforeAll(async () => {
  keepMaskMaps(true);
  was = maskMapsBudget(BUDGET);
  const line = new TextEncoder().encode(`${SECRETS.github}\n`.repeat(TOKENS / 4));
  for (const id of IDS) {
    await using writer = await store.create(sessionOptions(id));
    await writer.started({ pid: process.pid, transportMode: "pipe", ttyAttached: false });
    for (let k = 0; k < 4; k++) writer.append("stdout", line);
    writer.append("stdout", new TextEncoder().encode(`the end of ${id}\n`));
    await writer.finalize({ state: "exited", exit_code: 0 });
  }
}, 60_000);

afterAll(() => {
  maskMapsBudget(was);
  keepMaskMaps(false);
  fs.rmSync(root, { recursive: true, force: true });
});

const search = async (id: string, literal: string) => {
  const t = await openTranscript(store, id);
  const found = await searchTranscript(t, {
    pattern: compilePattern(literal, { literal: true }),
    context: 0,
    maxMatches: 5,
    deadline: Infinity,
  });
  return found.match_count;
};

test("the maps kept stay within the budget; one dropped is read back from its file, and masks the same", async () => {
  const held: number[] = [];
  for (const id of IDS) {
    expect(await search(id, `the end of ${id}`)).toBe(1);
    held.push(maskMapsHeld(store));
  }
  // Each map holds 80 KB of ranges (two bytes each): all four would pass the budget.
  const file = join(root, "sessions", "b1", "mask-map.bin");
  expect(fs.statSync(file).size).toBe(96 + 2 * TOKENS);
  expect(held.every((n) => n > 0 && n <= BUDGET)).toBe(true);
  expect(held.at(-1)!).toBeGreaterThan(BUDGET / 2);
  // b1 was dropped: searched again, its map is read from mask-map.bin (not written again), and the
  // token is still masked (a guess at its start finds nothing).
  const made = fs.statSync(file).mtimeMs;
  expect(await search("b1", SECRETS.github.slice(0, 12))).toBe(0);
  expect(await search("b1", "the end of b1")).toBe(1);
  expect(fs.statSync(file).mtimeMs).toBe(made);
  expect(maskMapsHeld(store)).toBeLessThanOrEqual(BUDGET);
}, 120_000);
