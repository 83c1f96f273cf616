/**
 * maskLines (src/transcript/written-over.ts) masks a window's written-over lines in one call of the
 * raw masking when it has several: the same bytes and ranges as masking each line on its own, over
 * random lines with tokens, AWS keys, colours, titles left open at a line's end, escapes cut by the
 * LF, a PEM key (which takes the line-by-line way) and a last line without its LF.
 */
import { describe, expect, test } from "bun:test";
import type { SessionMeta } from "../../src/core/store.ts";
import { redactorFor } from "../../src/transcript/masking.ts";
import { maskLines } from "../../src/transcript/written-over.ts";
import { seededRandom } from "../helpers/seeded-random.ts";

const redactor = redactorFor({ session_id: "t", started_at: "2026-01-01T00:00:00Z", rows: 24 } as unknown as SessionMeta);

const PARTS = [
  "plain words ",
  "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
  "AKIAIOSFODNN7EXAMPLE ",
  "password=hunter2hunter2 ",
  "\x1b[31m",
  "\x1b[0m",
  "\x1b]0;title ",
  "\x1b]0;ghp_ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210",
  "\x1b[12",
  "\x1b",
  "\r",
  "\x07",
  "-----BEGIN OPENSSH PRIVATE KEY-----",
  "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
];

describe("maskLines", () => {
  test("several lines in one call mask what each on its own masks", () => {
    const random = seededRandom(38);
    let masked = 0;
    let batched = 0;
    for (let k = 0; k < 400; k++) {
      const lines: string[] = [];
      for (let n = 2 + Math.floor(random() * 12); n > 0; n--) {
        let line = "";
        for (let p = Math.floor(random() * 5); p > 0; p--) line += PARTS[Math.floor(random() * PARTS.length)]!;
        lines.push(`${line}\n`);
      }
      if (random() < 0.2) lines[lines.length - 1] = lines[lines.length - 1]!.slice(0, -1);
      const bytes = new TextEncoder().encode(lines.join(""));
      // Every other line a range (consecutive ones joined), as overwrittenLines gives them.
      const ranges: Array<[number, number]> = [];
      let at = 0;
      lines.forEach((line, i) => {
        const size = new TextEncoder().encode(line).length;
        if (i % 3 !== 1) {
          const last = ranges[ranges.length - 1];
          if (last && last[1] === at) last[1] = at + size;
          else ranges.push([at, at + size]);
        }
        at += size;
      });
      const whole = maskLines(redactor, bytes, ranges, -1);
      // One range at a time: each masked on its own.
      let expected: Uint8Array = bytes;
      const expectedRanges: Array<{ start: number; end: number }> = [];
      for (const range of ranges) {
        const one = maskLines(redactor, expected, [range], -1);
        expected = one.bytes;
        expectedRanges.push(...one.ranges);
      }
      expect([k, Buffer.from(whole.bytes).toString("latin1")]).toEqual([k, Buffer.from(expected).toString("latin1")]);
      expect([k, whole.ranges]).toEqual([k, expectedRanges]);
      masked += expectedRanges.length > 0 ? 1 : 0;
      batched += ranges.length >= 4 ? 1 : 0;
    }
    expect(Math.min(masked, batched)).toBeGreaterThan(50);
  });

  test("a line whose LF an escape left open takes as its final reads to its end, as on its own", () => {
    // `ESC[` (or a lone ESC) just before the LF: the raw masking takes the LF for the sequence's
    // final, so the line's text ends there. A key's body line behind a prefix must end its line.
    const key = "Qm9vdFN0cmFwS2V5MXRoaXNJc0FuT3BlblNTSFByaXZhdGVLZXlCb2R5TGluZTk4NzY1NDMy";
    for (const open of ["\x1b[", "\x1b", "\x1b[12;", "\x1b("]) {
      const lines = [`x ${key}${open}\n`, "plain\n", "a\rb\n", "plain\n", "c\rd\n", "plain\n", "e\rf\n", "plain\n", "g\rh\n"];
      const bytes = new TextEncoder().encode(lines.join(""));
      const ranges: Array<[number, number]> = [];
      let at = 0;
      lines.forEach((line, i) => {
        if (i % 2 === 0) ranges.push([at, at + line.length]);
        at += line.length;
      });
      const alone = maskLines(redactor, bytes, [ranges[0]!], -1);
      expect(alone.ranges).toEqual([{ start: 2, end: 2 + key.length }]);
      const whole = maskLines(redactor, bytes, ranges, -1);
      expect([open, whole.ranges]).toEqual([open, alone.ranges]);
      expect(Buffer.from(whole.bytes).toString("latin1")).toBe(Buffer.from(alone.bytes).toString("latin1"));
    }
  });
});
