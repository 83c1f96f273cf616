/**
 * A regular expression already accepted by `new RegExp` (no `u` or `v` flag), parsed into the few
 * shapes the backtracking check reasons about: one character out of a set, a sequence, a choice, a
 * repeat, a zero-width assertion, a lookaround, a back-reference. Groups are transparent.
 */
import { caseFolded, charSet, DIGIT, DOT, negate, oneChar, SPACE, union, WORD, type CharSet } from "./charset.ts";

export type RegexNode =
  | { readonly kind: "char"; readonly set: CharSet }
  | { readonly kind: "seq"; readonly items: readonly RegexNode[] }
  | { readonly kind: "alt"; readonly options: readonly RegexNode[] }
  | { readonly kind: "repeat"; readonly body: RegexNode; readonly min: number; readonly max: number }
  /** `^`, `$`, `\b`, `\B`: match no character, and may fail. */
  | { readonly kind: "assert" }
  | { readonly kind: "look"; readonly body: RegexNode }
  /** `\1`, `\k<name>`: any text, of any length. */
  | { readonly kind: "backref" };

const QUANTIFIER = /^(?:([*+?])|\{(\d+)(?:(,)(\d*))?\})\??/;
const CLASS_ESCAPES: Record<string, CharSet> = { d: DIGIT, D: negate(DIGIT), w: WORD, W: negate(WORD), s: SPACE, S: negate(SPACE) };
const CONTROL_ESCAPES: Record<string, number> = { n: 0x0a, r: 0x0d, t: 0x09, v: 0x0b, f: 0x0c, "0": 0 };

/** The tree of `source`, which must be a valid pattern; `ignoreCase` folds every set. */
export function parseRegex(source: string, ignoreCase: boolean): RegexNode {
  const named = /\(\?<[A-Za-z_$]/.test(source);
  let i = 0;
  const fold = (set: CharSet) => (ignoreCase ? caseFolded(set) : set);

  /** One escaped character at `i` (just past the backslash), inside a class or not. */
  const escapedChar = (): CharSet => {
    const c = source[i++]!;
    if (c in CLASS_ESCAPES) return CLASS_ESCAPES[c]!;
    if (c in CONTROL_ESCAPES) return oneChar(CONTROL_ESCAPES[c]!);
    const hex = c === "x" ? /^[0-9a-fA-F]{2}/.exec(source.slice(i)) : c === "u" ? /^[0-9a-fA-F]{4}/.exec(source.slice(i)) : null;
    if (hex) {
      i += hex[0].length;
      return oneChar(Number.parseInt(hex[0], 16));
    }
    if (c === "c" && /^[A-Za-z]/.test(source[i] ?? "")) return oneChar(source.charCodeAt(i++) % 32);
    return oneChar(c.charCodeAt(0));
  };

  const charClass = (): CharSet => {
    const negated = source[i] === "^";
    if (negated) i++;
    let set: CharSet = [];
    while (i < source.length && source[i] !== "]") {
      const from = classAtom();
      if (source[i] === "-" && source[i + 1] !== "]" && i + 1 < source.length && from.length === 2 && from[0] === from[1]) {
        i++;
        const to = classAtom();
        set =
          to.length === 2 && to[0] === to[1] ? union(set, charSet([from[0]!, to[0]!])) : union(union(set, from), union(oneChar(0x2d), to));
      } else set = union(set, from);
    }
    i++; // ]
    return negated ? negate(set) : set;
  };

  const classAtom = (): CharSet => {
    const c = source[i++]!;
    if (c !== "\\") return oneChar(c.charCodeAt(0));
    if (source[i] === "b") {
      i++;
      return oneChar(0x08);
    }
    return escapedChar();
  };

  const atom = (): RegexNode | undefined => {
    const c = source[i]!;
    if (c === "(") {
      const prefix = /^\((\?(?:[:=!]|<[=!]|<[A-Za-z_$][\w$]*>|[ims]*-?[ims]*:))?/.exec(source.slice(i, i + 64))!;
      i += prefix[0].length;
      const body = alternation();
      i++; // )
      const look = prefix[1] !== undefined && /^\?(?:[=!]|<[=!])/.test(prefix[1]);
      return look ? { kind: "look", body } : body;
    }
    i++;
    if (c === ".") return { kind: "char", set: DOT };
    if (c === "^" || c === "$") return { kind: "assert" };
    if (c === "[") return { kind: "char", set: fold(charClass()) };
    if (c !== "\\") return { kind: "char", set: fold(oneChar(c.charCodeAt(0))) };
    const e = source[i]!;
    if (e === "b" || e === "B") {
      i++;
      return { kind: "assert" };
    }
    if (/[1-9]/.test(e) || (e === "k" && named)) {
      i++;
      if (e === "k") i = source.indexOf(">", i) + 1;
      else while (/[0-9]/.test(source[i] ?? "")) i++;
      return { kind: "backref" };
    }
    return { kind: "char", set: fold(escapedChar()) };
  };

  const sequence = (): RegexNode => {
    const items: RegexNode[] = [];
    while (i < source.length && source[i] !== "|" && source[i] !== ")") {
      let node = atom();
      if (!node) continue;
      for (let q = QUANTIFIER.exec(source.slice(i, i + 32)); q; q = QUANTIFIER.exec(source.slice(i, i + 32))) {
        i += q[0].length;
        const [min, max] =
          q[1] === "*"
            ? [0, Infinity]
            : q[1] === "+"
              ? [1, Infinity]
              : q[1] === "?"
                ? [0, 1]
                : [Number(q[2]), q[3] === undefined ? Number(q[2]) : q[4] === "" ? Infinity : Number(q[4])];
        node = { kind: "repeat", body: node, min: min!, max: max! };
      }
      items.push(node);
    }
    return items.length === 1 ? items[0]! : { kind: "seq", items };
  };

  const alternation = (): RegexNode => {
    const options = [sequence()];
    while (source[i] === "|") {
      i++;
      options.push(sequence());
    }
    return options.length === 1 ? options[0]! : { kind: "alt", options };
  };

  return alternation();
}
