/**
 * maskAssembled's fast way (the grid's runs and known prefixes, the looks masked a batch at a time
 * with the keywords found once) masks the same bytes and counts the same secrets as the slow way
 * (the grid cell by cell, each look masked on its own), over the bench's outputs and random
 * transcripts that write tokens in pieces with every edit the grid knows, in windows cut anywhere.
 */
import { expect, test } from "bun:test";
import { assembledOutput } from "../../bench/assembled-mask.ts";
import type { SessionMeta } from "../../src/core/store.ts";
import { maskAssembled } from "../../src/transcript/assembled.ts";
import { redactorFor } from "../../src/transcript/masking.ts";
import { randomText } from "../helpers/secrets.ts";
import { seededRandom } from "../helpers/seeded-random.ts";

const redactor = redactorFor({ session_id: "fast-path", started_at: "2026-01-01T00:00:00Z", rows: 6 } as unknown as SessionMeta);
const r = randomText(4242);
const PIECES = [`ghp_${r(10)}`, r(26), "GITHUB_TOKEN=", `sk-proj-${r(12)}`, r(30), "password: ", r(8), "aws ", r(40)];
const EDITS = [
  "\r",
  "\n",
  "\r\n",
  "\b\b\b",
  " ",
  "done",
  "\x1b[K",
  "\x1b[2K\r",
  "\x1b[1K",
  "\x1b[12C",
  "\x1b[20D",
  "\x1b[5G",
  "\x1b[3P",
  "\x1b[4@",
  "\x1b[2X",
  "\x1b[A",
  "\x1b[2;8H",
  "\x1b7",
  "\x1b8",
  "\x1b[32m",
  "\x1b[0m",
  "é",
  "\x1b]0;title\x07",
];

/** The whole of `bytes` masked the fast way. */
const whole = (bytes: Uint8Array) =>
  maskAssembled(redactor, { bytes, masked: redactor.bytes(bytes).bytes, window: { start: 0, end: bytes.length }, fresh: true });

/** Both ways over `bytes` with the window `[start, end)`: the same bytes, the same count. */
function same(bytes: Uint8Array, start: number, end: number, fresh: boolean): void {
  const masked = redactor.bytes(bytes).bytes;
  const input = { bytes, masked, window: { start, end }, fresh };
  const fast = maskAssembled(redactor, input);
  const slow = maskAssembled(redactor, { ...input, slow: true });
  expect([fast.count, Buffer.from(fast.bytes).toString("latin1")]).toEqual([slow.count, Buffer.from(slow.bytes).toString("latin1")]);
}

test("the bench's outputs", () => {
  for (const kind of ["plain", "colour", "progress", "erase"] as const) {
    const bytes = assembledOutput(kind, 1 << 16);
    same(bytes, 4096, bytes.length - 4096, false);
  }
});

test("random transcripts of tokens written in pieces and edited, windows cut anywhere", () => {
  const rand = seededRandom(2);
  const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)]!;
  let masks = 0;
  for (let round = 0; round < 300; round++) {
    let text = "";
    const parts = 4 + Math.floor(rand() * 40);
    for (let i = 0; i < parts; i++) text += rand() < 0.4 ? pick(PIECES) : pick(EDITS);
    const bytes = new TextEncoder().encode(text);
    const start = Math.floor(rand() * bytes.length);
    const end = start + Math.floor(rand() * (bytes.length - start + 1));
    same(bytes, start, end, rand() < 0.5);
    masks += whole(bytes).count;
  }
  // The transcripts do assemble secrets: the comparison is not of two empty answers.
  expect(masks).toBeGreaterThan(50);
});

test("more looks than one batch holds", () => {
  const token = `ghp_${r(36)}`;
  // Each line a row of 2000 cells with the token put together in it, then cleared.
  const line = (i: number) =>
    `plain ${"y".repeat(2000)}\x1b[2K\r\x1b[4C${token.slice(4)} ${"x".repeat(2000 + i)}\r${token.slice(0, 4)}\x1b[2K\r`;
  const bytes = new TextEncoder().encode(`${Array.from({ length: 60 }, (_, i) => line(i)).join("")}\n`);
  same(bytes, 0, bytes.length, true);
  expect(whole(bytes).count).toBe(60);
});

test("a full-screen program's rows, masked in one pass over their texts joined, as each on its own", () => {
  const token = `ghp_${r(36)}`;
  // Each row's token put together from its two halves (the second first), over an old row: the
  // rows shown are many a window, so they are masked together; a PEM key's BEGIN among them (its
  // state runs on from row to row) and a value that a rule would read across rows mask each alone.
  const at = (i: number, col: number) => `\x1b[${(i % 5) + 1};${col}H`;
  const row = (i: number, extra: string) =>
    `${at(i, 1)}${"- ".repeat(30 + i)}${at(i, 5)}${token.slice(4)} ok ${extra}${at(i, 1)}${token.slice(0, 4)}${at(i, 60)}\x1b[K`;
  for (const extra of ["", "-----BEGIN RSA PRIVATE KEY-----", `${r(40)}`]) {
    const frames = Array.from({ length: 40 }, (_, i) => row(i, i === 17 ? extra : "")).join("");
    const bytes = new TextEncoder().encode(`\x1b[H\x1b[2J${frames}\n`);
    same(bytes, 0, bytes.length, true);
    same(bytes, 500, bytes.length - 300, false);
    expect(whole(bytes).count).toBeGreaterThanOrEqual(40);
  }
});
