/**
 * Search over the text view of a real colour test run and of a generated multi-megabyte log:
 * literal and regular expression, case, context without repeats, the cap and the count, byte
 * ranges that lead back to the raw bytes, and patterns refused with a clear error.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isDerunError } from "../../src/core/errors.ts";
import { compilePattern, type PatternOptions } from "../../src/views/search.ts";
import { textLines } from "../../src/views/text.ts";
import { tempDir } from "../helpers/cli.ts";
import { recordPty, recording, type Recording } from "../helpers/record.ts";
import { failingTestFile } from "../helpers/view-programs.ts";
import { searchText } from "../helpers/search-text.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

function refusal(options: PatternOptions & { pattern: string }): string {
  try {
    compilePattern(options.pattern, options);
  } catch (error) {
    if (!isDerunError(error, "invalid_argument")) throw error;
    return error.message;
  }
  throw new Error(`pattern ${JSON.stringify(options.pattern)} was accepted`);
}

describe("search over a real colour test run", () => {
  const dir = tempDir("derun-views-search-");
  afterAll(() => dir[Symbol.dispose]());
  let rec: Recording;

  beforeAll(async () => {
    mkdirSync(join(dir.path, "bun"));
    writeFileSync(join(dir.path, "bun", "cart.test.ts"), failingTestFile);
    rec = await recordPty([process.execPath, "test", "--colors", "cart.test.ts"], { cwd: join(dir.path, "bun") });
  }, 120_000); // real programs on a loaded machine

  test("a literal finds the failing test, with line numbers and byte ranges back into the raw bytes", () => {
    const lines = textLines(rec.chunks);
    const result = searchText(rec.chunks, { pattern: "totals the shopping cart", literal: true });
    expect(result.matchCount).toBe(2);
    for (const m of result.matches) {
      expect(lines[m.number - 1]!.text).toBe(m.line.text);
      const raw = dec.decode(rec.bytes.subarray(m.line.start, m.line.end));
      expect(Bun.stripANSI(raw)).toContain("totals the shopping cart");
      expect(m.line.text.slice(m.column, m.column + m.match.length)).toBe("totals the shopping cart");
    }
    expect(result.matches[1]!.line.text).toMatch(/^✗ totals the shopping cart/);
  });

  test("a regular expression with context: the diff lines and around them, each line once", () => {
    const result = searchText(rec.chunks, { pattern: String.raw`^[-+]\s+"total"`, context: 2 });
    expect(result.matches.map((m) => m.line.text)).toEqual(['-   "total": 6,', '+   "total": 5,']);
    const [first, second] = result.matches;
    expect(first!.before.map((l) => l.line.text)).toEqual(['    "apples": 3,', '    "pears": 2,']);
    // The second match follows right after the first: it is not repeated as the first's context.
    expect(first!.after).toEqual([]);
    expect(second!.before).toEqual([]);
    expect(second!.after.map((l) => l.line.text)).toEqual(["  }", ""]);
    const numbers = result.matches.flatMap((m) => [...m.before, m, ...m.after].map((l) => l.number));
    expect(numbers).toEqual([...new Set(numbers)].sort((a, b) => a - b));
  });

  test("ignoreCase, for a literal and a regular expression", () => {
    expect(searchText(rec.chunks, { pattern: "EXPECT(RECEIVED)", literal: true, ignoreCase: true }).matchCount).toBe(1);
    expect(searchText(rec.chunks, { pattern: "EXPECT(RECEIVED)", literal: true }).matchCount).toBe(0);
    expect(searchText(rec.chunks, { pattern: "^ \\d+ FAIL$", ignoreCase: true }).matches.map((m) => m.line.text)).toEqual([" 1 fail"]);
  });
});

describe("search over a generated log", () => {
  const size = 8 << 20;
  const needle = "ERROR database connection refused: ECONNREFUSED 127.0.0.1:5432";
  let rec: Recording;
  let needleLine = 0;

  beforeAll(() => {
    const parts: string[] = [];
    let length = 0;
    for (let i = 0; length < size; i++) {
      const line =
        i === 54321
          ? `2024-05-01T12:00:00.000Z ${needle}\n`
          : `2024-05-01T12:00:${String(i % 60).padStart(2, "0")}.123Z INFO request id=${i} status=200\n`;
      if (i === 54321) needleLine = i + 1;
      parts.push(line);
      length += line.length;
    }
    const bytes = enc.encode(parts.join(""));
    rec = recording(
      Array.from({ length: Math.ceil(bytes.length / 65536) }, (_, k) => ({
        channel: "stdout" as const,
        bytes: bytes.subarray(k * 65536, (k + 1) * 65536),
      })),
    );
  }, 60_000);

  test("one error line in megabytes of log: found with its number and byte range", () => {
    const result = searchText(rec.chunks, { pattern: "econnrefused", literal: true, ignoreCase: true, context: 1 });
    expect(result.matchCount).toBe(1);
    const [m] = result.matches;
    expect(m!.number).toBe(needleLine);
    expect(dec.decode(rec.bytes.subarray(m!.line.start, m!.line.end))).toBe(`2024-05-01T12:00:00.000Z ${needle}\n`);
    expect(m!.before.map((l) => l.number)).toEqual([needleLine - 1]);
    expect(m!.after.map((l) => l.number)).toEqual([needleLine + 1]);
    expect(JSON.stringify(result).length).toBeLessThan(2048);
  });

  test("matches beyond the cap are counted, not kept", () => {
    const counted = searchText(rec.chunks, { pattern: "status=200", literal: true, maxMatches: 5 });
    expect(counted.matches.length).toBe(5);
    expect(counted.truncated).toBe(true);
    expect(counted.matchCount).toBe(counted.linesSearched - 1);
  });
});

describe("patterns", () => {
  test("an invalid regular expression is refused with a clear one-line error", () => {
    expect(refusal({ pattern: "fail(ed" })).toBe('invalid pattern "fail(ed": Invalid regular expression: missing )');
    expect(refusal({ pattern: "" })).toBe('invalid pattern "": it is empty');
    const long = refusal({ pattern: `(${"x".repeat(5000)}` });
    expect(long.length).toBeLessThan(300);
    expect(long).not.toContain("\n");
  });

  test(
    "shapes that backtrack catastrophically are refused where only the backtracking engine can run them, taken by the linear " +
      "engine otherwise; ordinary ones pass",
    () => {
      for (const pattern of [
        "(a+)+$",
        String.raw`(\d+\.)+x`,
        String.raw`^(\w+\s?)*$`,
        String.raw`\s*\s*$`,
        ".*.*=.*;",
        String.raw`\w+\s*\w+$`,
      ]) {
        expect(refusal({ pattern: `(?=.)${pattern}` })).toContain("can take exponential or polynomial time");
        expect(compilePattern(pattern).linear).toBeDefined();
      }
      for (const pattern of [
        "error",
        "error.*file.*line",
        String.raw`\w+\s+\w+`,
        String.raw`(\d{1,3}\.){3}\d{1,3}`,
        String.raw`^\s*at .*\(.*:\d+:\d+\)$`,
        "(?:foo|bar)+",
        String.raw`[^:]+:\d+:\d+: (error|warning)`,
      ]) {
        expect(() => compilePattern(pattern)).not.toThrow();
      }
      // As a literal, anything goes.
      expect(() => compilePattern("(a+)+$", { literal: true })).not.toThrow();
    },
  );

  test("a regular expression sees the start of a line (lineChars); a literal sees it all, case ignored or not", () => {
    const line = `${"x".repeat(10000)} needle\n`;
    const chunks = recording([{ channel: "pty", bytes: enc.encode(line) }]).chunks;
    expect(searchText(chunks, { pattern: "need+le" })).toMatchObject({ matchCount: 0, longLines: 1 });
    expect(searchText(chunks, { pattern: "need+le", lineChars: 20000 }).matchCount).toBe(1);
    expect(searchText(chunks, { pattern: "needle", literal: true })).toMatchObject({ matchCount: 1, longLines: 0 });
    const folded = searchText(chunks, { pattern: "NEEDLE", literal: true, ignoreCase: true });
    expect(folded).toMatchObject({ matchCount: 1, longLines: 0 });
    expect(folded.matches[0]).toMatchObject({ column: 10001, match: "needle" });
  });

  test("where a long line is cut for a regular expression, `$` does not match: the line goes on", () => {
    const cutAt = (text: string) => `${"x".repeat(4096 - text.length)}${text}`;
    const line = `${cutAt("END")}X and the line goes on\nshort END\n${"a".repeat(5000)}!\n`;
    const chunks = recording([{ channel: "pty", bytes: enc.encode(line) }]).chunks;
    const lineNumbers = (pattern: string) => searchText(chunks, { pattern }).matches.map((m) => m.number);
    expect(lineNumbers("END$")).toEqual([2]);
    expect(lineNumbers("END\\s*$")).toEqual([2]);
    expect(searchText(chunks, { pattern: "(a+)+$" }).matchCount).toBe(0);
    // What follows the cut is not known: a match that would take it in is none (the real next character is X).
    expect(lineNumbers("END[^X]")).toEqual([]);
    expect(lineNumbers("END.")).toEqual([]);
    // A match up to the cut is a match.
    expect(searchText(chunks, { pattern: "EN[A-Z]+" }).matches.map((m) => [m.number, m.match])).toEqual([
      [1, "END"],
      [2, "END"],
    ]);
  });
});
