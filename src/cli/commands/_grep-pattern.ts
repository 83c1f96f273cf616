/**
 * `derun grep`'s patterns as one search pattern, as grep reads them: several -e a line matching
 * any, -F plain text, -i either case, -w whole words.
 */
import { compilePattern, type SearchPattern } from "../../transcript/index.ts";
import { usageError } from "../usage.ts";

/** The flags that say how to read the patterns (grep's own names), as derun grep parsed them. */
export interface GrepPatternFlags {
  readonly "fixed-strings"?: boolean;
  readonly "ignore-case"?: boolean;
  readonly "word-regexp"?: boolean;
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/** The patterns as one search pattern; a bad one throws, named as typed. */
export function compilePatterns(patterns: readonly string[], values: GrepPatternFlags): SearchPattern {
  const literal = values["fixed-strings"] === true;
  const ignoreCase = values["ignore-case"];
  // One regular expression for several, each pattern a choice of its own: each is judged alone
  // first (a bad one is named as typed, and `a)(b` cannot pass as part of `(?:a)(b)`), and groups
  // are numbered across all of them, so a back-reference would point into another pattern.
  if (patterns.length > 1) {
    for (const p of patterns) compilePattern(p, { literal, ignoreCase });
    if (!literal && patterns.some((p) => /\\(?:[1-9]|k<)/.test(p)))
      throw usageError("a back-reference (\\1, \\k<name>) works in a pattern given alone, not among several -e");
  }
  const source = patterns.map((p) => (literal ? escapeRegex(p) : patterns.length > 1 ? `(?:${p})` : p)).join("|");
  const compiled = patterns.length === 1 ? compilePattern(patterns[0]!, { literal, ignoreCase }) : compilePattern(source, { ignoreCase });
  // -w: between word boundaries, as grep -w is for a pattern that starts and ends with a word character.
  return values["word-regexp"] ? compilePattern(`\\b(?:${source})\\b`, { ignoreCase }) : compiled;
}
