/**
 * A search pattern from a client, compiled or refused with a clear error. JavaScript's engine
 * backtracks and cannot be interrupted (not even by terminating its worker), and the recorded
 * program chooses the text, so every line a regular expression runs on must be cheap whatever it
 * holds. Two engines share the work (docs/search.md says why and what was measured):
 *
 * - the native engine, fast on ordinary lines, takes a line when the pattern's shape
 *   (`_backtracking.ts`) bounds its work there to about 2^20 steps (about a millisecond): every
 *   line for most patterns, short lines only for `.*a.*b$`;
 * - the linear engine (`_linear.ts`, RE2) takes the longer lines, and every line of a pattern that
 *   could take exponential time natively (`(a+)+$`), in time proportional to the line.
 *
 * A pattern the linear engine cannot run (look-arounds, back-references) is judged as before: refused
 * when its shape is dangerous, otherwise run natively on the start of a line short enough to keep it
 * within about 2^22 steps. A regular expression sees the first LINE_CHARS characters of a line; a
 * literal the whole line: its work is linear.
 */
import { DerunError } from "../../core/errors.ts";
import { quote } from "../../core/quote.ts";
import { charsWithin, judgeBacktracking, LINE_CHARS } from "./backtracking.ts";
import { linearRegex, type LinearRegex } from "./linear.ts";
import { parseRegex, type RegexNode } from "./regex-tree.ts";

export const MAX_PATTERN_CHARS = 1000;

export interface PatternOptions {
  readonly literal?: boolean;
  readonly ignoreCase?: boolean;
}

/** A compiled pattern and how much of a line it runs on. */
export interface SearchPattern {
  readonly source: string;
  readonly re: RegExp;
  /** The same with the g flag: searched from a position (lastIndex). */
  readonly global: RegExp;
  /** Characters of a line a regular expression runs on (a literal is found anywhere in it). */
  readonly lineChars: number;
  /** A literal, lower-cased when case is ignored: found by indexOf, whose work is linear. */
  readonly literal?: string;
  readonly ignoreCase: boolean;
  /** The linear engine, for lines longer than `nativeChars` (absent: the native engine runs every line, cut to `lineChars`). */
  readonly linear?: LinearRegex;
  readonly nativeChars: number;
  /**
   * UTF-8 bytes every match must hold, case and all (the longest run of single characters the
   * pattern requires): search goes straight to the lines whose bytes hold them (literal-scan.ts).
   */
  readonly needle?: Uint8Array;
}

/** Steps the native engine may take on one line (2^20: about a millisecond) when the linear engine can take over. */
const NATIVE_STEP_BITS = 20;
/** Steps it may take on one line of a pattern only it can run (2^22: a few milliseconds). */
const NATIVE_ONLY_STEP_BITS = 22;
/** A pattern only the native engine runs, and only on shorter starts of lines than this, is refused. */
const MIN_LINE_CHARS = 256;

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
    const literal = ignoreCase ? pattern.toLowerCase() : pattern;
    const needle = !ignoreCase || pattern.toLowerCase() === pattern.toUpperCase() ? needleOf(pattern) : undefined;
    return {
      source: pattern,
      re,
      global: new RegExp(re.source, `${flags}g`),
      lineChars: LINE_CHARS,
      literal,
      ignoreCase,
      linear: linearRegex(re.source, ignoreCase),
      nativeChars: LINE_CHARS,
      ...(needle ? { needle } : {}),
    };
  }
  let re: RegExp;
  let global: RegExp;
  try {
    re = new RegExp(pattern, flags);
    global = new RegExp(pattern, `${flags}g`);
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).split("\n")[0]!.slice(0, 200);
    throw refuse(pattern, message);
  }
  const verdict = judgeBacktracking(pattern, options.ignoreCase);
  const linear = linearRegex(pattern, ignoreCase);
  const needle = needleOf(requiredRun(parseRegex(pattern, ignoreCase || /\(\?[ms]*i[ims]*(?:-[ims]*)?:/.test(pattern))));
  if (linear) {
    const nativeChars = verdict.power === Infinity ? 0 : charsWithin(verdict, NATIVE_STEP_BITS);
    return { source: pattern, re, global, lineChars: LINE_CHARS, ignoreCase, linear, nativeChars, ...(needle ? { needle } : {}) };
  }
  const why =
    "which can take exponential or polynomial time, and it needs the backtracking engine (a look-around or back-reference); " +
    "simplify it or search a literal";
  if (verdict.risk) throw refuse(pattern, `${verdict.risk}, ${why}`);
  const lineChars = charsWithin(verdict, NATIVE_ONLY_STEP_BITS);
  if (lineChars < MIN_LINE_CHARS)
    throw refuse(pattern, `it chains unbounded quantifiers over overlapping characters (like a.*b.*c), ${why}`);
  return { source: pattern, re, global, lineChars, ignoreCase, nativeChars: lineChars, ...(needle ? { needle } : {}) };
}

/** A required text as the bytes to look for, or undefined (empty, or holding U+FFFD, which bytes cannot be matched for). */
const needleOf = (text: string): Uint8Array | undefined =>
  text.length === 0 || text.includes("\ufffd") ? undefined : new TextEncoder().encode(text);

/**
 * The longest run of single characters (one code unit each, no surrogate) that every match of the
 * tree holds in a row; "" when there is none. Anything else breaks a run: a set of several
 * characters (case folded included), a choice, an optional or repeated part (a required first
 * round still counts), an assertion, a look-around, a back-reference.
 */
function requiredRun(tree: RegexNode): string {
  let best = "";
  let run = "";
  const cut = () => {
    if (run.length > best.length) best = run;
    run = "";
  };
  const walk = (n: RegexNode): void => {
    if (n.kind === "char" && n.set.length === 2 && n.set[0] === n.set[1] && (n.set[0]! < 0xd800 || n.set[0]! > 0xdfff))
      run += String.fromCharCode(n.set[0]!);
    else if (n.kind === "seq") n.items.forEach(walk);
    else if (n.kind === "repeat" && n.min >= 1) {
      walk(n.body);
      cut();
    } else cut();
  };
  walk(tree);
  cut();
  return best;
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
  const { text, end } = searchedPart(pattern, line);
  const span = findIn(pattern, text, 0);
  return span && span.end <= end ? { index: span.index, text: text.slice(span.index, Math.min(span.end, span.index + 200)) } : undefined;
}

/**
 * What a regular expression runs on: the line, or, longer than it sees, its first `lineChars`
 * characters and a line break, so that `$` cannot match where the line was cut (it goes on there).
 * A match that takes in the break (`\s*$`, `[^X]`) is no match: what follows the cut is not known.
 * It is not looked for again further on (that could take a search per character of the line), so
 * a later match in such a line can be missed; an assertion of what follows (`\b`) at the cut is taken
 * as the break makes it.
 */
function searchedPart(pattern: SearchPattern, line: string): { text: string; end: number } {
  if (!seenInPart(pattern, line)) return { text: line, end: line.length };
  return { text: `${line.slice(0, pattern.lineChars)}\n`, end: pattern.lineChars };
}

/** The first match in `text` at or after `from`, by the engine `text`'s length calls for. */
function findIn(pattern: SearchPattern, text: string, from: number): { index: number; end: number } | undefined {
  if (pattern.linear && text.length > pattern.nativeChars) return pattern.linear.find(text, from);
  const re = pattern.global;
  re.lastIndex = from;
  const m = re.exec(text);
  return m ? { index: m.index, end: m.index + m[0].length } : undefined;
}

/**
 * Every match in `line` (in its first `lineChars` characters for a regular expression), at most
 * `max`, without overlaps: what `derun grep -o` prints and its colour marks. An empty match is
 * skipped over, as grep does.
 */
export function matchesIn(pattern: SearchPattern, line: string, max = 1000): { index: number; end: number }[] {
  const { text, end } =
    pattern.literal === undefined && line.length > pattern.lineChars ? searchedPart(pattern, line) : { text: line, end: line.length };
  const out: { index: number; end: number }[] = [];
  for (let from = 0; from <= end && out.length < max; ) {
    const found =
      pattern.literal !== undefined && !pattern.ignoreCase ? literalSpan(text, pattern.literal, from) : findIn(pattern, text, from);
    if (!found || found.end > end) break;
    const span = found;
    if (span.end > span.index) out.push(span);
    from = Math.max(span.end, span.index + 1);
  }
  return out;
}

const literalSpan = (text: string, literal: string, from: number) => {
  const index = text.indexOf(literal, from);
  return index < 0 ? undefined : { index, end: index + literal.length };
};

/** Whether a regular expression saw only the start of `line` (a literal sees every character). */
export const seenInPart = (pattern: SearchPattern, line: string): boolean =>
  line.length > pattern.lineChars && (pattern.literal === undefined || (pattern.ignoreCase && line.toLowerCase().length !== line.length));
