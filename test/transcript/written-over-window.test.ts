/**
 * overwrittenMasks (src/transcript/written-over.ts) masks only the written-over lines a window shows:
 * a line wholly in the context before or after it is left alone (its masks would not be kept), one
 * that crosses either edge of the window is masked as a whole line, as before.
 */
import { expect, test } from "bun:test";
import type { SessionMeta } from "../../src/core/store.ts";
import { redactorFor } from "../../src/transcript/masking.ts";
import { overwrittenMasks } from "../../src/transcript/written-over.ts";

const redactor = redactorFor({ session_id: "t", started_at: "2026-01-01T00:00:00Z", rows: 24 } as unknown as SessionMeta);
const TOKEN = "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
/** A token printed, then written over by something shorter: the line shows its rest. */
const over = (lead: string) => `${lead}${TOKEN}\rshort\n`;

function masked(text: string, window: { start: number; end: number }) {
  const bytes = new TextEncoder().encode(text);
  const r = overwrittenMasks(redactor, bytes, { bytes, at: [] }, window, (k) => k, new Set());
  return { text: new TextDecoder().decode(r.bytes), at: r.at, carry: r.carry };
}

test("a written-over line wholly before or after the window is not masked; one inside it is", () => {
  const before = over("before ");
  const inside = over("inside ");
  const after = over("after ");
  const text = before + inside + after;
  const window = { start: before.length, end: before.length + inside.length };
  const r = masked(text, window);
  // Before and after stay as they were; the line inside has its token masked and counted.
  expect(r.text.slice(0, window.start)).toBe(before);
  expect(r.text.slice(window.end)).toBe(after);
  expect(r.text.slice(window.start, window.end)).toBe(`inside ${"*".repeat(TOKEN.length)}\rshort\n`);
  expect(r.at).toEqual([window.start + "inside ".length]);
});

test("a line across either edge of the window is masked where the window shows it", () => {
  // The token begins one byte into the window: the line began in the context before it.
  const lead = "x".repeat(20);
  const text = over(lead);
  const start = lead.length;
  const r = masked(text, { start, end: text.length });
  expect(r.text).toBe(`${lead}${"*".repeat(TOKEN.length)}\rshort\n`);
  expect(r.at).toEqual([start]);
  // The window ends inside the token: masked up to there, carried on to the next window.
  const cut = masked(text, { start: 0, end: start + 10 });
  expect(cut.text.slice(0, start + 10)).toBe(`${lead}${"*".repeat(10)}`);
  expect(cut.carry).toEqual([start]);
});
