/**
 * A window of one-byte records (a program that writes a byte at a time: typed keys echoed, a slow
 * progress character by character) masked by the raw reads' and the text readers' passes: each
 * record's masked bytes were put back in place by searching the window's list for it, so a window
 * of n records cost n^2 / 2 steps (a million: 5 * 10^11 steps). Now a lookup each.
 */
import { expect, test } from "bun:test";
import type { OutputSlice } from "../../src/core/store.ts";
import { assembledBetween } from "../../src/transcript/assembled-text.ts";
import { maskBetween, redactorFor } from "../../src/transcript/masking.ts";
import type { SessionMeta } from "../../src/core/store.ts";
import { randomText } from "../helpers/secrets.ts";

const redactor = redactorFor({ session_id: "tiny", started_at: "2026-01-01T00:00:00Z", rows: 24 } as unknown as SessionMeta);
const RECORDS = 1_000_000;

/** `RECORDS` one-byte records: filler lines, then a token written over after `\r` (the text pass acts). */
function oneByteRecords(token: string): OutputSlice[] {
  const text = `${"x".repeat(RECORDS - token.length - 12)}\n${token}\rdone, ok: \n`;
  const bytes = new TextEncoder().encode(text);
  return Array.from(bytes, (b, i) => ({ channel: "stdout" as const, start: i, end: i + 1, timestamp: "", bytes: Uint8Array.of(b) }));
}

test("a million one-byte records (a 1 MiB window of them): masked by the raw and the text passes, each record put back in place", () => {
  const token = `ghp_${randomText(4111)(36)}`;
  const slices = oneByteRecords(token);
  const raw = maskBetween(redactor, [], slices, []);
  const rawText = Buffer.concat(raw.slices.map((s) => s.bytes)).toString("latin1");
  expect(rawText).toContain(`\n${"*".repeat(40)}\rdone`);
  expect(raw.count).toBe(1);

  const text = assembledBetween(redactor, [], slices, []);
  const masked = slices.map((s, i) => text.bytes[i] ?? s.bytes);
  expect(Buffer.concat(masked).toString("latin1")).toContain(`\n${"*".repeat(40)}\rdone`);
  expect(text.at).toHaveLength(1);
}, 60_000);
