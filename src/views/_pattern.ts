/**
 * A search pattern from a client, compiled or refused with a clear error. JavaScript's engine
 * backtracks and cannot be interrupted (not even by terminating its worker), so the shapes that
 * make it take exponential or high polynomial time on one line are refused up front: nested
 * unbounded quantifiers (`(a+)+`) and unbounded quantifiers in a row over overlapping characters
 * (`\s*\s*`, `.*.*`). That is a heuristic, not a proof; the search also bounds the line length a
 * regular expression runs on.
 */
import { DerunError } from "../core/errors.ts";

export const MAX_PATTERN_CHARS = 1000;

export interface PatternOptions {
  readonly literal?: boolean;
  readonly ignoreCase?: boolean;
}

const quote = (pattern: string): string => JSON.stringify(pattern.length > 100 ? `${pattern.slice(0, 100)}…` : pattern);
const refuse = (pattern: string, why: string) => new DerunError("invalid_argument", `invalid pattern ${quote(pattern)}: ${why}`);

/** The pattern as a RegExp (a literal escaped), or a DerunError "invalid_argument" saying why not. */
export function compilePattern(pattern: string, options: PatternOptions = {}): RegExp {
  if (pattern.length === 0) throw refuse(pattern, "it is empty");
  if (pattern.length > MAX_PATTERN_CHARS) throw refuse(pattern, `longer than ${MAX_PATTERN_CHARS} characters`);
  const flags = options.ignoreCase ? "i" : "";
  if (options.literal) return new RegExp(pattern.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"), flags);
  let re: RegExp;
  try {
    re = new RegExp(pattern, flags);
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).split("\n")[0]!.slice(0, 200);
    throw refuse(pattern, message);
  }
  const risk = backtrackingRisk(pattern);
  if (risk) throw refuse(pattern, `${risk}, which can take exponential or polynomial time; simplify it or search a literal`);
  return re;
}

interface Atom {
  readonly key: string;
  /** Matches many kinds of character: `.`, a negated class or shorthand, a group. */
  readonly broad: boolean;
  /** A group whose content has an unbounded quantifier. */
  readonly nested: boolean;
}

/** Why the pattern risks catastrophic backtracking, or undefined. */
export function backtrackingRisk(source: string): string | undefined {
  // Per open group: whether an unbounded quantifier occurs inside, and the unbounded atoms since the last required one.
  const frames: Array<{ nested: boolean; run: Atom[] }> = [{ nested: false, run: [] }];
  let atom: Atom | undefined;
  for (let i = 0; i < source.length; ) {
    const frame = frames[frames.length - 1]!;
    const c = source[i]!;
    const quantifier = /^(?:[*+?]|\{(\d*)(,?)(\d*)\})\??/.exec(source.slice(i, i + 24));
    if (atom && quantifier && (quantifier[0][0] !== "{" || quantifier[1] !== "" || quantifier[3] !== "")) {
      const q = quantifier[0];
      const unbounded = q[0] === "*" || q[0] === "+" || (quantifier[2] === "," && quantifier[3] === "");
      const optional = q[0] === "*" || q[0] === "?" || (q[0] === "{" && Number(quantifier[1] || 0) === 0);
      if (unbounded) {
        if (atom.nested) return "it nests unbounded quantifiers (like (a+)+)";
        if (frame.run.some((prev) => overlap(prev, atom!))) return "it repeats unbounded quantifiers over overlapping characters (like \\s*\\s* or .*.*)";
        // A required repeat (+, {1,}) separates what came before it from what follows; `*` does not.
        if (optional) frame.run.push(atom);
        else frame.run = [atom];
        frame.nested = true;
      } else if (!optional) frame.run = [];
      atom = undefined;
      i += q.length;
      continue;
    }
    if (atom) frame.run = []; // the previous atom was required once: it separates what came before
    atom = undefined;
    if (c === "\\") {
      const key = source.slice(i, i + 2);
      atom = { key, broad: /^\\[SWD]$/.test(key), nested: false };
      i += 2;
    } else if (c === "[") {
      let j = i + 1;
      if (source[j] === "^") j++;
      if (source[j] === "]") j++;
      while (j < source.length && source[j] !== "]") j += source[j] === "\\" ? 2 : 1;
      atom = { key: source.slice(i, j + 1), broad: source[i + 1] === "^", nested: false };
      i = j + 1;
    } else if (c === "(") {
      frames.push({ nested: false, run: [] });
      const prefix = /^\((?:\?(?:[:=!]|<[=!]|<[A-Za-z_$][\w$]*>))?/.exec(source.slice(i, i + 64))!;
      i += prefix[0].length;
    } else if (c === ")") {
      const inner = frames.length > 1 ? frames.pop()! : { nested: false };
      if (inner.nested) frames[frames.length - 1]!.nested = true;
      atom = { key: "()", broad: true, nested: inner.nested };
      i++;
    } else if (c === "|") {
      frame.run = [];
      i++;
    } else {
      if (c !== "^" && c !== "$") atom = { key: c, broad: c === ".", nested: false };
      i++;
    }
  }
  return undefined;
}

/** Could two repeated atoms match the same character (so backtracking can trade characters between them)? */
const overlap = (a: Atom, b: Atom): boolean => a.broad || b.broad || a.key === b.key;
