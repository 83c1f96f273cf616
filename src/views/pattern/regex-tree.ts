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
  return new RegexParser(source, ignoreCase).alternation();
}

/** A recursive descent over `source`, one method per level of the grammar; `i` is where it reads. */
class RegexParser {
  readonly #source: string;
  readonly #ignoreCase: boolean;
  /** Whether named groups exist (then `\k` is a back-reference, else a plain `k`). */
  readonly #named: boolean;
  #i = 0;

  constructor(source: string, ignoreCase: boolean) {
    this.#source = source;
    this.#ignoreCase = ignoreCase;
    this.#named = /\(\?<[A-Za-z_$]/.test(source);
  }

  #fold(set: CharSet): CharSet {
    return this.#ignoreCase ? caseFolded(set) : set;
  }

  /** One escaped character at `i` (just past the backslash), inside a class or not. */
  #escapedChar(): CharSet {
    const source = this.#source;
    const c = source[this.#i++]!;
    if (c in CLASS_ESCAPES) return CLASS_ESCAPES[c]!;
    if (c in CONTROL_ESCAPES) return oneChar(CONTROL_ESCAPES[c]!);
    const rest = source.slice(this.#i);
    const hex = c === "x" ? /^[0-9a-fA-F]{2}/.exec(rest) : c === "u" ? /^[0-9a-fA-F]{4}/.exec(rest) : null;
    if (hex) {
      this.#i += hex[0].length;
      return oneChar(Number.parseInt(hex[0], 16));
    }
    if (c === "c" && /^[A-Za-z]/.test(source[this.#i] ?? "")) return oneChar(source.charCodeAt(this.#i++) % 32);
    return oneChar(c.charCodeAt(0));
  }

  #charClass(): CharSet {
    const source = this.#source;
    const negated = source[this.#i] === "^";
    if (negated) this.#i++;
    let set: CharSet = [];
    while (this.#i < source.length && source[this.#i] !== "]") {
      const from = this.#classAtom();
      const i = this.#i;
      if (source[i] === "-" && source[i + 1] !== "]" && i + 1 < source.length && from.length === 2 && from[0] === from[1]) {
        this.#i++;
        const to = this.#classAtom();
        set =
          to.length === 2 && to[0] === to[1] ? union(set, charSet([from[0]!, to[0]!])) : union(union(set, from), union(oneChar(0x2d), to));
      } else set = union(set, from);
    }
    this.#i++; // ]
    return negated ? negate(set) : set;
  }

  #classAtom(): CharSet {
    const c = this.#source[this.#i++]!;
    if (c !== "\\") return oneChar(c.charCodeAt(0));
    if (this.#source[this.#i] === "b") {
      this.#i++;
      return oneChar(0x08);
    }
    return this.#escapedChar();
  }

  /** A group: its body, or a lookaround around it (other groups are transparent). */
  #group(): RegexNode {
    const prefix = /^\((\?(?:[:=!]|<[=!]|<[A-Za-z_$][\w$]*>|[ims]*-?[ims]*:))?/.exec(this.#source.slice(this.#i, this.#i + 64))!;
    this.#i += prefix[0].length;
    const body = this.alternation();
    this.#i++; // )
    const look = prefix[1] !== undefined && /^\?(?:[=!]|<[=!])/.test(prefix[1]);
    return look ? { kind: "look", body } : body;
  }

  /** What follows a backslash outside a class. */
  #escape(): RegexNode {
    const source = this.#source;
    const e = source[this.#i]!;
    if (e === "b" || e === "B") {
      this.#i++;
      return { kind: "assert" };
    }
    if (/[1-9]/.test(e) || (e === "k" && this.#named)) {
      this.#i++;
      if (e === "k") this.#i = source.indexOf(">", this.#i) + 1;
      else while (/[0-9]/.test(source[this.#i] ?? "")) this.#i++;
      return { kind: "backref" };
    }
    return { kind: "char", set: this.#fold(this.#escapedChar()) };
  }

  #atom(): RegexNode {
    const c = this.#source[this.#i]!;
    if (c === "(") return this.#group();
    this.#i++;
    if (c === ".") return { kind: "char", set: DOT };
    if (c === "^" || c === "$") return { kind: "assert" };
    if (c === "[") return { kind: "char", set: this.#fold(this.#charClass()) };
    if (c !== "\\") return { kind: "char", set: this.#fold(oneChar(c.charCodeAt(0))) };
    return this.#escape();
  }

  /** `node` under the quantifiers that follow it, if any. */
  #quantified(atom: RegexNode): RegexNode {
    let node = atom;
    for (let q = this.#quantifier(); q; q = this.#quantifier()) {
      this.#i += q[0].length;
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
    return node;
  }

  #quantifier(): RegExpExecArray | null {
    return QUANTIFIER.exec(this.#source.slice(this.#i, this.#i + 32));
  }

  #sequence(): RegexNode {
    const source = this.#source;
    const items: RegexNode[] = [];
    while (this.#i < source.length && source[this.#i] !== "|" && source[this.#i] !== ")") items.push(this.#quantified(this.#atom()));
    return items.length === 1 ? items[0]! : { kind: "seq", items };
  }

  alternation(): RegexNode {
    const options = [this.#sequence()];
    while (this.#source[this.#i] === "|") {
      this.#i++;
      options.push(this.#sequence());
    }
    return options.length === 1 ? options[0]! : { kind: "alt", options };
  }
}
