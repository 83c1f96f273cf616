/**
 * A JavaScript regular expression run by RE2JS (a pure-JavaScript port of RE2: no native addon, so
 * it survives `bun build --compile`), whose work on a line grows linearly with the line's length
 * whatever the pattern: what a backtracking engine would take seconds or years on is milliseconds
 * here. It is slower than the native engine on ordinary lines (10 to 100 times), so `_pattern.ts`
 * gives it only the lines a pattern could be slow on natively.
 *
 * The two dialects differ, so the pattern is translated token by token, conservatively: `.` and
 * `\s` are spelled out as JavaScript defines them, `(?<name>` becomes `(?P<name>`, a `{` that is not
 * a quantifier is literal as in JavaScript. What RE2 cannot run or reads differently (look-arounds,
 * back-references, `\p`, identity escapes of letters, `[[:alpha:]]`, lone surrogates) gives
 * undefined, and the pattern stays with the native engine and its backtracking bound.
 */
import { RE2JS } from "re2js";

/** Where a match is in a line: [index, end). */
export interface Span {
  readonly index: number;
  readonly end: number;
}

export interface LinearRegex {
  /** The first match in `text` at or after `from`. */
  find(text: string, from?: number): Span | undefined;
}

/** JavaScript's `\s` (ECMA-262 WhiteSpace and LineTerminator), as the body of a class. */
const SPACE = "\\t\\n\\v\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}";
/** JavaScript's `.` without the s flag. */
const DOT = "[^\\n\\r\\x{2028}\\x{2029}]";
const ANY = "\\x00-\\x{10FFFF}";
const QUANTIFIER = /^\{\d+(?:,\d*)?\}/;
const HEX2 = /^[0-9a-fA-F]{2}/;
const HEX4 = /^[0-9a-fA-F]{4}/;

const isSurrogate = (code: number) => code >= 0xd800 && code <= 0xdfff;
const hex = (code: number) => `\\x{${code.toString(16)}}`;

/** The pattern in RE2's syntax with the same meaning, or undefined where that is not sure. */
export function toRe2Syntax(source: string): string | undefined {
  let out = "";
  let inClass = false;
  let i = 0;
  /** `[]` matches nothing and `[^]` anything in JavaScript; RE2 reads a `]` there as a member. */
  const openClass = (): void => {
    if (source.startsWith("[]", i)) {
      out += `[^${ANY}]`;
      i += 2;
    } else if (source.startsWith("[^]", i)) {
      out += `[${ANY}]`;
      i += 3;
    } else {
      out += "[";
      if (source[i + 1] === "^") out += "^";
      i += source[i + 1] === "^" ? 2 : 1;
      inClass = true;
    }
  };
  const escape = (): string | undefined => {
    const e = source[i + 1];
    i += 2;
    if (e === undefined) return undefined;
    switch (e) {
      case "d":
      case "D":
      case "w":
      case "W":
      case "n":
      case "r":
      case "t":
      case "v":
      case "f":
        return `\\${e}`;
      case "s":
        return inClass ? SPACE : `[${SPACE}]`;
      case "S":
        return inClass ? undefined : `[^${SPACE}]`;
      case "b":
        return inClass ? "\\x08" : "\\b";
      case "B":
        return inClass ? undefined : "\\B";
      case "0":
        return /[0-9]/.test(source[i] ?? "") ? undefined : "\\x00";
      case "x": {
        const h = HEX2.exec(source.slice(i, i + 2));
        if (!h) return undefined;
        i += 2;
        return hex(Number.parseInt(h[0], 16));
      }
      case "u": {
        const h = HEX4.exec(source.slice(i, i + 4));
        if (!h || isSurrogate(Number.parseInt(h[0], 16))) return undefined;
        i += 4;
        return hex(Number.parseInt(h[0], 16));
      }
      case "c": {
        const letter = source[i];
        if (letter === undefined || !/[A-Za-z]/.test(letter)) return undefined;
        i++;
        return hex(letter.charCodeAt(0) % 32);
      }
      default:
        // Punctuation is itself in both; a letter or digit means something else in each (\k, \p, \1, \e).
        return /^[!-/:-@[-`{-~]$/.test(e) ? `\\${e}` : undefined;
    }
  };
  while (i < source.length) {
    const c = source[i]!;
    if (isSurrogate(c.charCodeAt(0))) return undefined; // JavaScript (no u flag) sees halves; RE2 a code point
    if (c === "\\") {
      const e = escape();
      if (e === undefined) return undefined;
      out += e;
    } else if (inClass) {
      if (c === "]") inClass = false;
      out += c === "[" ? "\\[" : c; // RE2 reads `[:` in a class as a POSIX class
      i++;
    } else if (c === "[") openClass();
    else if (c === "(") {
      if (/^\(\?(?:[=!]|<[=!])/.test(source.slice(i, i + 4))) return undefined; // look-around
      if (source.startsWith("(?<", i)) {
        out += "(?P<";
        i += 3;
      } else {
        out += c;
        i++;
      }
    } else if (c === "{") {
      const q = QUANTIFIER.exec(source.slice(i, i + 24));
      out += q ? q[0] : "\\{";
      i += q ? q[0].length : 1;
    } else if (c === "}") {
      out += "\\}";
      i++;
    } else {
      out += c === "." ? DOT : c;
      i++;
    }
  }
  return inClass ? undefined : out;
}

/** `source` (a valid JavaScript pattern, no flags but i) on the linear engine, or undefined where it cannot run there. */
export function linearRegex(source: string, ignoreCase: boolean): LinearRegex | undefined {
  const translated = toRe2Syntax(source);
  if (translated === undefined) return undefined;
  let re: RE2JS;
  try {
    re = RE2JS.compile(translated, ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  } catch {
    return undefined; // beyond RE2's limits (a count over 1000, a program too large): the native engine and its bound
  }
  return {
    find(text, from = 0) {
      const m = re.matcher(text);
      return m.find(from) ? { index: m.start(), end: m.end() } : undefined;
    },
  };
}
