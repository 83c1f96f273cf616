/**
 * A search pattern from a client, compiled or refused with a clear error. JavaScript's engine
 * backtracks and cannot be interrupted (not even by terminating its worker), so a pattern whose
 * work on one line could grow exponentially, or as a high power of the line's length, is refused
 * up front (`_backtracking.ts` says which shapes), and a regular expression runs on a bounded
 * start of each line. A literal is matched on the whole line: its work is linear.
 */
import { DerunError } from "../core/errors.ts";
import { quote } from "../core/quote.ts";
import { judgeBacktracking, LINE_CHARS } from "./_backtracking.ts";

export const MAX_PATTERN_CHARS = 1000;

export interface PatternOptions {
  readonly literal?: boolean;
  readonly ignoreCase?: boolean;
}

/** A compiled pattern and how much of a line it runs on. */
export interface SearchPattern {
  readonly source: string;
  readonly re: RegExp;
  /** Characters of a line a regular expression runs on (a literal is found anywhere in it). */
  readonly lineChars: number;
  /** A literal, lower-cased when case is ignored: found by indexOf, whose work is linear. */
  readonly literal?: string;
  readonly ignoreCase: boolean;
}

/** Where a pattern matched in a line. */
export interface LineMatch {
  readonly index: number;
  readonly text: string;
}

const refuse = (pattern: string, why: string) => new DerunError("invalid_argument", `invalid pattern ${quote(pattern)}: ${why}`);

/** The pattern compiled (a literal escaped), or a DerunError "invalid_argument" saying why not. */
export function compilePattern(pattern: string, options: PatternOptions = {}): SearchPattern {
  if (pattern.length === 0) throw refuse(pattern, "it is empty");
  if (pattern.length > MAX_PATTERN_CHARS) throw refuse(pattern, `longer than ${MAX_PATTERN_CHARS} characters`);
  const flags = options.ignoreCase ? "i" : "";
  const ignoreCase = options.ignoreCase === true;
  if (options.literal) {
    const re = new RegExp(pattern.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"), flags);
    return { source: pattern, re, lineChars: LINE_CHARS, literal: ignoreCase ? pattern.toLowerCase() : pattern, ignoreCase };
  }
  let re: RegExp;
  try {
    re = new RegExp(pattern, flags);
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).split("\n")[0]!.slice(0, 200);
    throw refuse(pattern, message);
  }
  const verdict = judgeBacktracking(pattern, options.ignoreCase);
  if (verdict.risk) throw refuse(pattern, `${verdict.risk}, which can take exponential or polynomial time; simplify it or search a literal`);
  return { source: pattern, re, lineChars: verdict.lineChars, ignoreCase };
}

/** The first match in `line`, at most 200 characters of it. */
export function matchLine(pattern: SearchPattern, line: string): LineMatch | undefined {
  const { literal } = pattern;
  if (literal !== undefined) {
    const folded = pattern.ignoreCase ? line.toLowerCase() : line;
    // Lower-casing that changes a line's length (rare letters) would shift columns: the expression then.
    if (folded.length === line.length) {
      const index = folded.indexOf(literal);
      return index < 0 ? undefined : { index, text: line.slice(index, index + Math.min(literal.length, 200)) };
    }
  }
  const m = pattern.re.exec(seenInPart(pattern, line) ? line.slice(0, pattern.lineChars) : line);
  return m ? { index: m.index, text: m[0].slice(0, 200) } : undefined;
}

/** Whether a regular expression saw only the start of `line` (a literal sees every character). */
export const seenInPart = (pattern: SearchPattern, line: string): boolean =>
  line.length > pattern.lineChars && (pattern.literal === undefined || (pattern.ignoreCase && line.toLowerCase().length !== line.length));
