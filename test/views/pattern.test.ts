/**
 * Which patterns are refused before they run, judged by shape with character sets compared as
 * sets: the shapes that backtrack exponentially or as a high power of a line's length are refused,
 * ordinary grep patterns are accepted, and the ones whose work grows as the square of a line's
 * length run on a shorter start of each line.
 */
import { describe, expect, test } from "bun:test";
import { judgeBacktracking, LINE_CHARS } from "../../src/views/pattern/backtracking.ts";
import { compilePattern } from "../../src/views/search.ts";

const refusedFor = (pattern: string, ignoreCase = false): string | undefined => judgeBacktracking(pattern, ignoreCase).risk;

describe("patterns judged by shape", () => {
  test("exponential shapes are refused: nested quantifiers, and repeated choices whose options overlap", () => {
    for (const pattern of [
      "(a|aa)+$",
      String.raw`(\w|_)+$`,
      String.raw`(.|\s)+x`,
      "(x+x+)+y",
      "(a+)+$",
      String.raw`^(\w+\s?)*$`,
      "(a?b?)+c",
      "(a{1,2})+c",
      String.raw`(\d{1,3},?)+x`,
      "(?:a|a){26}c",
      String.raw`([0-9]|\d)*x`,
    ]) {
      expect([pattern, refusedFor(pattern)]).toEqual([
        pattern,
        expect.stringMatching(/^it (nests|repeats a choice|can match a line in too many ways)/),
      ]);
    }
    // Case folding makes options overlap that would not otherwise.
    expect(refusedFor("(a|A)+x")).toBeUndefined();
    expect(refusedFor("(a|A)+x", true)).toBeDefined();
  });

  test("unbounded quantifiers in a row over overlapping sets are refused, whatever the sets are called", () => {
    for (const pattern of [
      String.raw`\d+[0-9]+\d+[0-9]+x`,
      String.raw`\d+\d+x`,
      String.raw`\s*x?\s*y`,
      String.raw`[a-z]+\d*[a-z]+x`,
      ".*.*=.*;",
      String.raw`\w+\s*\w+$`,
    ]) {
      expect([pattern, refusedFor(pattern)]).toEqual([pattern, expect.stringMatching(/next to each other/)]);
    }
    expect(refusedFor("a.*b.*c.*d")).toMatch(/three or more/);
  });

  test("ordinary grep patterns are accepted, and run on whole lines up to the usual bound", () => {
    for (const pattern of [
      "error.*timeout",
      String.raw`\d+\.\d+`,
      "(foo|bar)",
      String.raw`warning: .*\.c:\d+`,
      "(?:foo|bar)+",
      String.raw`(\d{1,3}\.){3}\d{1,3}`,
      String.raw`[^:]+:\d+:\d+: (error|warning)`,
      String.raw`listening on port \d+`,
      String.raw`\w+@\w+\.com`,
      String.raw`(\d+)\s\1`,
      "ERROR|WARN",
      String.raw`\s+$`,
      "(ab?)+c",
    ]) {
      const verdict = judgeBacktracking(pattern);
      expect([pattern, verdict.risk, verdict.lineChars]).toEqual([pattern, undefined, LINE_CHARS]);
    }
  });

  test("two unbounded quantifiers that can trade characters across a separator run on a shorter start of each line", () => {
    for (const pattern of ["a.*b.*c", ".*a.*x", String.raw`^\s*at .*\(.*:\d+:\d+\)$`]) {
      const verdict = judgeBacktracking(pattern);
      expect(verdict.risk).toBeUndefined();
      expect(verdict.lineChars).toBeLessThan(LINE_CHARS);
      expect(verdict.lineChars).toBeGreaterThanOrEqual(1000);
    }
    // Nothing after the second can fail: it never gives back what it took, and the line is whole.
    expect(judgeBacktracking("a.*b.*").lineChars).toBe(LINE_CHARS);
  });

  test(
    "compilePattern refuses a dangerous shape only the backtracking engine can run, saying why in one bounded line; a literal is " +
      "never judged",
    () => {
      expect(() => compilePattern("(?=x)(a|aa)+$")).toThrow(
        'invalid pattern "(?=x)(a|aa)+$": it repeats a choice whose options can match the same text (like (a|aa)+ or (\\w|_)+), which ' +
          "can take exponential or polynomial time, and it needs the backtracking engine (a look-around or back-reference); " +
          "simplify it or " +
          "search a literal",
      );
      expect(() => compilePattern(String.raw`(\w)x.*a.*b\1`)).toThrow(/chains unbounded quantifiers/);
      expect(compilePattern("(a|aa)+$", { literal: true }).literal).toBe("(a|aa)+$");
    },
  );

  test("a shape dangerous to the backtracking engine runs on the linear engine, on every line or on the long ones", () => {
    expect(compilePattern("(a|aa)+$").nativeChars).toBe(0);
    expect(compilePattern("(a+)+$").nativeChars).toBe(0);
    const chained = compilePattern(".*a.*b$");
    expect(chained.linear).toBeDefined();
    expect(chained.nativeChars).toBeGreaterThan(50);
    expect(chained.nativeChars).toBeLessThan(200);
    expect(compilePattern("error: .*").nativeChars).toBe(LINE_CHARS);
  });
});
