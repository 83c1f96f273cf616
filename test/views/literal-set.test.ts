/**
 * The one-pass literal scanner says what the ways it replaced said: for masking's keywords,
 * `text.toLowerCase().includes(k)` for each (Unicode's lower case, with its two characters that
 * become ASCII); for the failure view, whether ANY_RULE (a case-blind regex) can match a line. Over
 * many random texts made of the literals' own characters and their troublesome neighbours.
 */
import { describe, expect, test } from "bun:test";
import { SILENT } from "../../src/secrets/mask-bytes.ts";
import { LiteralSet } from "../../src/views/literal-set.ts";
import { ANY_RULE, FAILURE_RULES, failureRuleOf, NOT_FAILURE_LINES } from "../../src/views/failure-rules.ts";

const KEYWORDS = [
  "ghp_",
  "github_pat_",
  "akia",
  "sk-ant-",
  "sk-",
  "hooks.slack.com",
  "private key",
  "://",
  "authorization",
  "auth",
  "key",
  "passw",
];

/**
 * Random texts (seeded) of up to `max` pieces: a character of `alphabet`, or a piece of one of
 * `words` (a head or a tail of it, in random case), so that literals, near misses and literals
 * broken by an odd character all come often.
 */
function texts(alphabet: string, words: readonly string[], count: number, max: number): string[] {
  let seed = 12345;
  const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x80000000;
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const chars = [...alphabet];
  const piece = (): string => {
    if (rand() < 0.6) return pick(chars);
    const word = pick(words);
    const cut = Math.floor(rand() * (word.length + 1));
    const part = rand() < 0.5 ? word.slice(0, cut) : word.slice(cut);
    return [...(rand() < 0.3 ? word : part)].map((c) => (rand() < 0.5 ? c.toUpperCase() : c)).join("");
  };
  return Array.from({ length: count }, () => Array.from({ length: Math.floor(rand() * max) }, piece).join(""));
}

describe("LiteralSet", () => {
  test("finds exactly the keywords that toLowerCase().includes finds, Kelvin sign and dotted I included", () => {
    const set = LiteralSet.of(KEYWORDS, { unicodeLower: true })!;
    const alphabet = "aAkKeEyYiIsS-_:/ pPrRvVtThHoOgG.\u212a\u0130\u0307é\u00ff漢";
    let withSome = 0;
    for (const text of texts(alphabet, KEYWORDS, 40000, 12)) {
      const lower = text.toLowerCase();
      const want = KEYWORDS.filter((k) => lower.includes(k)).sort();
      expect([...set.presentIn(text)].sort()).toEqual(want);
      expect(set.anyIn(text)).toBe(want.length > 0);
      if (want.length > 0) withSome++;
    }
    expect(withSome).toBeGreaterThan(5000); // the texts do hold keywords, often
    expect([...set.presentIn("x \u212aEY y")]).toEqual(["key"]);
    expect([...set.presentIn("AUTH\u0130ORIZATION")]).toEqual(["auth"]);
  });

  test("presentAndFlagged: the same literals, and whether a flagged character is there, as a regular expression says", () => {
    const set = LiteralSet.of(KEYWORDS, { unicodeLower: true })!;
    // The raw masking's flags: the controls a terminal draws nothing for.
    const flags = SILENT;
    const flaggedRe = /[\x00-\x07\x0e-\x1a\x1c-\x1f\x7f]/;
    const alphabet = "aAkKeEyYsS-_:/ pPrRtThH.\x00\x07\x08\x0a\x0d\x0e\x1b\x1f\x7f\x80\x87\xff\u212a\u0130é";
    let flagged = 0;
    for (const text of texts(alphabet, KEYWORDS, 20000, 30)) {
      const got = set.presentAndFlagged(text, flags);
      expect([...got.present].sort()).toEqual([...set.presentIn(text)].sort());
      expect(got.flagged).toBe(flaggedRe.test(text));
      if (got.flagged) flagged++;
    }
    expect(flagged).toBeGreaterThan(2000);
    expect(flagged).toBeLessThan(19000);
    // Every literal present, then a flagged character: the scan does not stop at the literals.
    expect(set.presentAndFlagged(`${KEYWORDS.join(" ")} \x00`, flags)).toEqual({ present: new Set(KEYWORDS), flagged: true });
  });

  test("refuses literals it cannot take (empty, upper case, outside ASCII)", () => {
    expect(LiteralSet.of([""], { unicodeLower: true })).toBeUndefined();
    expect(LiteralSet.of(["Key"], { unicodeLower: true })).toBeUndefined();
    expect(LiteralSet.of(["clé"], { unicodeLower: true })).toBeUndefined();
  });
});

describe("failureRuleOf's shortcut", () => {
  test("lets through every line ANY_RULE matches (random lines of its words' characters)", () => {
    const alphabet = "eErRoOfFaAiIlLtTpPnNcCxXsSdDuUgGkKmMhHbByY.:_*0123456789 \t✗×●\u212a\u0130";
    const words = ["error", "failed", "fatal", "panic", "critical", "exception", "traceback", "interrupt", "exit", "killed"];
    words.push("segmentation", "dumped", "undefined", "main.go:3", "not found", "no such file", "permission denied", "caused by");
    words.push("___", "***", "E   x");
    let matched = 0;
    for (const line of texts(alphabet, words, 60000, 8)) {
      const any = ANY_RULE.test(line);
      if (any) matched++;
      // The rule found is the one the regexes alone find.
      expect(failureRuleOf(line)).toBe(any ? FAILURE_RULES.find((r) => r.pattern.test(line)) : undefined);
    }
    expect(matched).toBeGreaterThan(5000);
  });

  test("rules' examples still match and the near misses still do not", () => {
    for (const r of FAILURE_RULES) for (const e of r.examples) expect(failureRuleOf(e)).toBeDefined();
    for (const line of NOT_FAILURE_LINES) expect(failureRuleOf(line)).toBeUndefined();
  });
});
