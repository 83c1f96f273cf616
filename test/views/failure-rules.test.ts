/**
 * The failure-line rules (src/views/failure-rules.ts) hold to their examples, and the failure view
 * picks, repeats, merges and starts over as it says.
 */
import { describe, expect, test } from "bun:test";
import { ClearScan } from "../../src/views/clear-screen.ts";
import { FailureLines } from "../../src/views/failure.ts";
import { ANY_RULE, FAILURE_RULES, failureRuleOf, NOT_FAILURE_LINES } from "../../src/views/failure-rules.ts";

describe("failure rules", () => {
  for (const rule of FAILURE_RULES) {
    test(`${rule.name} matches its examples, as the first rule that does`, () => {
      for (const example of rule.examples) {
        expect([example, failureRuleOf(example)?.name]).toEqual([example, rule.name]);
        expect([example, ANY_RULE.test(example)]).toEqual([example, true]); // the quick test lets it through
      }
    });
  }
  test("lines near a failure line are none", () => {
    for (const line of NOT_FAILURE_LINES) expect([line, failureRuleOf(line)?.name]).toEqual([line, undefined]);
  });
});

const pick = (lines: readonly string[], options = {}) => {
  const f = new FailureLines(options);
  for (const line of lines) f.push(line);
  return f.result();
};

describe("FailureLines", () => {
  test("a failure line with its rule's context; lines that touch make one region", () => {
    const r = pick([
      "a",
      "b",
      "c",
      "d",
      "Traceback (most recent call last):",
      '  File "x.py", line 1, in <module>',
      "    1 / 0",
      "ZeroDivisionError: division by zero",
      "z",
    ]);
    expect(r.errorLines).toBe(2);
    expect(r.regions.map((g) => g.lines.map((l) => `${l.line}${l.error ? ":" : "-"}${l.text}`))).toEqual([
      [
        "5:Traceback (most recent call last):",
        '6-  File "x.py", line 1, in <module>',
        "7-    1 / 0",
        "8:ZeroDivisionError: division by zero",
        "9-z",
      ],
    ]);
  });

  test("a repeated line is counted once; failure lines alike but for numbers count against the first", () => {
    const r = pick(["x", "x", "x", "ERROR job 1 failed", "ok", "ok2", "ERROR job 22 failed", "ERROR job 22 failed"]);
    expect(r.tail.map((l) => [l.line, l.repeated ?? 0])).toEqual([
      [1, 2],
      [4, 0],
      [5, 0],
      [6, 0],
      [7, 1],
    ]);
    expect(r.regions).toHaveLength(1);
    expect(r.regions[0]).toMatchObject({ alike: 1, lastAlike: 7 });
    expect(r.errorLines).toBe(3);
  });

  test("regions are bounded; the rest are counted with their first line numbers", () => {
    const lines = Array.from({ length: 100 }, (_, i) =>
      i % 6 === 0 ? `fatal: thing ${String.fromCharCode(65 + (i % 26))}${i}x` : `line ${i}`,
    );
    const r = pick(lines, { maxRegions: 3, tailLines: 5 });
    expect(r.regions).toHaveLength(3);
    expect(r.errorLines).toBe(17);
    expect(r.tail).toHaveLength(5);
    expect(r.moreErrorLines.length).toBeGreaterThan(0);
  });

  test("a clear starts over, unless nothing follows it", () => {
    const f = new FailureLines();
    for (const line of ["error: one", "x"]) f.push(line);
    f.clear();
    for (const line of ["error: two", "y"]) f.push(line);
    expect(f.result()).toMatchObject({ from: 3, total: 4, errorLines: 1 });
    f.clear();
    expect(f.result()).toMatchObject({ from: 3, total: 4 });
  });
});

describe("ClearScan", () => {
  const bytes = (s: string) => new TextEncoder().encode(s);
  test("finds the last clear of a chunk, and one cut between chunks", () => {
    const scan = new ClearScan();
    expect(scan.push(bytes("a\x1b[2Jb\x1bcd"), 100)).toBe(106);
    expect(scan.push(bytes("plain \x1b[31mred\x1b[0m"), 200)).toBeUndefined();
    expect(scan.push(bytes("x\x1b["), 300)).toBeUndefined();
    expect(scan.push(bytes("3Jy"), 303)).toBe(301);
    expect(scan.push(bytes("\x1b"), 400)).toBeUndefined();
    expect(scan.push(bytes("["), 401)).toBeUndefined();
    expect(scan.push(bytes("2J"), 402)).toBe(400);
  });
});
