/**
 * The linear engine (RE2JS) takes the lines a pattern could be slow on natively: it must find what
 * JavaScript's engine finds (same place, same text) for every pattern it accepts, turn down what it
 * would read differently, and stay fast on the lines that take the native engine seconds.
 */
import { describe, expect, test } from "bun:test";
import { linearRegex, toRe2Syntax } from "../../src/views/pattern/linear.ts";
import { compilePattern, matchLine } from "../../src/views/search.ts";
import { matchesIn } from "../../src/views/pattern/pattern.ts";

const PATTERNS = [
  "error|warning",
  String.raw`\d+ms`,
  "ERROR.*failed",
  ".*a.*b$",
  "(a+)+$",
  String.raw`foo\w+`,
  String.raw`\bword\b`,
  "[^]x",
  "[]",
  "a{2,3}",
  "x{",
  "a{,3}",
  String.raw`\s+\S`,
  String.raw`[\s\d]+`,
  "(?<n>ab)c",
  String.raw`\x41\u0042`,
  String.raw`\cA`,
  String.raw`\.\*`,
  "[[:a]]",
  String.raw`^\s*$`,
  "h.llo",
  String.raw`[\b]`,
  "(?i:ABC)d",
  "é+",
  String.raw`\u00e9`,
  "a.c",
  "a*?b",
  "(x|xy)z",
  "(a|aa)+$",
  String.raw`[^\W\d]+`,
  "}",
  String.raw`\/`,
];
const TEXTS = [
  "error here warning",
  "took 123ms",
  "ERROR: it failed now",
  "xxaxxb",
  "aaaa",
  "foobar baz",
  "a word here",
  "\nx",
  "x{",
  "a{,3}",
  "  \u00a0 x",
  "12 34",
  "abc",
  "AB",
  "\x01",
  ".*",
  "[[:a]]",
  " \u3000 ",
  "hello",
  "\b",
  "abcd ABCd",
  "ééé É",
  "a\rc a\u2028c abc",
  "aaab",
  "xyz",
  "snake_case 9x",
  "}/",
  "",
];

describe("the linear engine", () => {
  test("finds what the native engine finds, at the same place, for every pattern it takes", () => {
    const differ: string[] = [];
    for (const pattern of PATTERNS) {
      for (const ignoreCase of [false, true]) {
        const linear = linearRegex(pattern, ignoreCase);
        expect([pattern, linear === undefined]).toEqual([pattern, false]);
        const native = new RegExp(pattern, ignoreCase ? "i" : "");
        for (const text of TEXTS) {
          const n = native.exec(text);
          const l = linear!.find(text);
          const a = n ? `${n.index}:${n[0]}` : "-";
          const b = l ? `${l.index}:${text.slice(l.index, l.end)}` : "-";
          if (a !== b) differ.push(`${pattern} on ${JSON.stringify(text)}: native ${a}, linear ${b}`);
        }
      }
    }
    expect(differ).toEqual([]);
  });

  test("turns down what RE2 would read differently or cannot run", () => {
    for (const pattern of [
      String.raw`(a)\1`,
      String.raw`(?<n>a)\k<n>`,
      "(?=a)b",
      "(?!a)b",
      "(?<=a)b",
      "(?<!a)b",
      String.raw`\p{L}`,
      String.raw`\e`,
      String.raw`\01`,
      String.raw`[\S]`,
      "\ud83d+",
      String.raw`\ud83d`,
    ]) {
      expect([pattern, toRe2Syntax(pattern)]).toEqual([pattern, undefined]);
    }
  });

  test("a hostile pattern on hostile lines: milliseconds per line, the same answers", () => {
    const hostile = "a".repeat(4096);
    for (const source of [".*a.*b$", "(a+)+$", "(a|aa)+$", String.raw`(\w+\s?)*$`, "a.*b.*c.*d.*e"]) {
      const pattern = compilePattern(source);
      const started = performance.now();
      for (let k = 0; k < 20; k++) matchLine(pattern, `${hostile}!`);
      expect((performance.now() - started) / 20).toBeLessThan(50);
    }
    expect(matchLine(compilePattern(".*a.*b$"), `${"a".repeat(3000)}b`)).toEqual({ index: 0, text: "a".repeat(200) });
    expect(matchLine(compilePattern("(a+)+$"), "xaaa")).toEqual({ index: 1, text: "aaa" });
  });

  test("every match in a line, for -o and colour, by either engine", () => {
    expect(matchesIn(compilePattern(String.raw`\d+`), "a1 b22 c333")).toEqual([
      { index: 1, end: 2 },
      { index: 4, end: 6 },
      { index: 8, end: 11 },
    ]);
    const long = `${"x".repeat(5000)}`;
    expect(matchesIn(compilePattern(".*a.*b"), `ab ab ${long}`)).toEqual([{ index: 0, end: 5 }]);
    expect(matchesIn(compilePattern("x*"), "axxb")).toEqual([{ index: 1, end: 3 }]);
    expect(matchesIn(compilePattern("AB", { literal: true, ignoreCase: true }), "ab xAb")).toEqual([
      { index: 0, end: 2 },
      { index: 4, end: 6 },
    ]);
  });
});
