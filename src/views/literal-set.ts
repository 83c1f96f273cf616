/**
 * Which of many ASCII literals a text holds, ignoring ASCII case, in one pass over it (an
 * Aho-Corasick automaton over the 128 ASCII codes, upper case folded to lower). Masking asked
 * `text.toLowerCase().includes(k)` for each of its 43 keywords over every line batch of a read, and
 * the failure view tested a case-blind alternation of 20 words on every line: over a 200 MB log
 * these were two thirds of `derun why`'s time (6 s of CPU), and most of a raw read's.
 *
 * A character outside ASCII is in no literal, so it breaks every match, with the two exceptions
 * that String.prototype.toLowerCase makes ASCII: U+212A (KELVIN SIGN) becomes "k", and U+0130
 * (I WITH DOT ABOVE) becomes "i" and U+0307 (so an "i" that no literal can continue). With
 * `unicodeLower: false` they break matches too, as a non-Unicode case-insensitive regex treats them.
 */

const ALPHABET = 128;
const KELVIN = 0x212a;
const DOTTED_I = 0x130;
/** ASCII with upper case folded to lower. */
const FOLD = Uint8Array.from({ length: ALPHABET }, (_, c) => (c >= 0x41 && c <= 0x5a ? c | 0x20 : c));
const NO_FLAGS = new Uint8Array(ALPHABET);

export class LiteralSet {
  readonly literals: readonly string[];
  /** next[state * 128 + code]: the automaton's move (failure links already followed), as the next state times 128. */
  readonly #next: Int32Array;
  /** Whether any literal ends at a state (by state times 128 / 128), to look at #ends only then. */
  readonly #ending: Uint8Array;
  /** The literals that end at each state (through its failure links), or undefined for none. */
  readonly #ends: (number[] | undefined)[];
  readonly #unicodeLower: boolean;

  /** Undefined when a literal is empty, not ASCII or holds upper case (the caller keeps its own way). */
  static of(literals: readonly string[], options: { unicodeLower: boolean }): LiteralSet | undefined {
    if (literals.some((l) => !/^[\x00-\x40\x5b-\x7f]+$/.test(l))) return undefined;
    return new LiteralSet(literals, options.unicodeLower);
  }

  private constructor(literals: readonly string[], unicodeLower: boolean) {
    this.literals = literals;
    this.#unicodeLower = unicodeLower;
    const goto: number[][] = [[]];
    const ends: number[][] = [[]];
    literals.forEach((literal, index) => {
      let s = 0;
      for (const ch of literal) {
        const c = ch.charCodeAt(0);
        if (goto[s]![c] === undefined) {
          goto[s]![c] = goto.length;
          goto.push([]);
          ends.push([]);
        }
        s = goto[s]![c]!;
      }
      ends[s]!.push(index);
    });
    const next = new Int32Array(goto.length * ALPHABET);
    const fail = new Int32Array(goto.length);
    // Breadth first: a state's failure link is settled before its children's.
    const queue: number[] = [];
    for (let c = 0; c < ALPHABET; c++) {
      const t = goto[0]![c];
      next[c] = t ?? 0;
      if (t !== undefined) queue.push(t);
    }
    for (let head = 0; head < queue.length; head++) {
      const s = queue[head]!;
      ends[s]!.push(...ends[fail[s]!]!);
      for (let c = 0; c < ALPHABET; c++) {
        const t = goto[s]![c];
        if (t === undefined) next[s * ALPHABET + c] = next[fail[s]! * ALPHABET + c]!;
        else {
          fail[t] = next[fail[s]! * ALPHABET + c]!;
          next[s * ALPHABET + c] = t;
          queue.push(t);
        }
      }
    }
    for (let i = 0; i < next.length; i++) next[i] = next[i]! * ALPHABET;
    this.#next = next;
    this.#ends = ends.map((e) => (e.length > 0 ? [...new Set(e)] : undefined));
    this.#ending = Uint8Array.from(this.#ends, (e) => (e ? 1 : 0));
  }

  /**
   * Calls `found` with the index of each literal `text` holds (ignoring ASCII case) where it ends,
   * until `found` returns true. Returns whether it met an ASCII code `flags` marks (one load and an
   * OR a character beside the automaton's chain of loads: free where it is asked).
   */
  #scan(text: string, found: (literal: number) => boolean, flags: Uint8Array = NO_FLAGS): boolean {
    const next = this.#next;
    const ending = this.#ending;
    const unicodeLower = this.#unicodeLower;
    let s = 0;
    let flagged = 0;
    for (let i = 0, n = text.length; i < n; i++) {
      let c = text.charCodeAt(i);
      let last = false;
      if (c >= ALPHABET) {
        if (!unicodeLower || (c !== KELVIN && c !== DOTTED_I)) {
          s = 0;
          continue;
        }
        // toLowerCase gives U+0130 as "i" and a combining dot: nothing goes on after that "i".
        last = c === DOTTED_I;
        c = last ? 0x69 : 0x6b;
      } else {
        flagged |= flags[c]!;
        c = FOLD[c]!;
      }
      s = next[s + c]!;
      if (ending[s >> 7] !== 0) for (const k of this.#ends[s >> 7]!) if (found(k)) return flagged !== 0;
      if (last) s = 0;
    }
    return flagged !== 0;
  }

  /**
   * The automaton itself, for a scanner of raw bytes (./failure-scan.ts): `next[state + code]` is
   * the next state (states are multiples of 128, codes folded to lower case), and `ends(state)`
   * whether a literal ends there.
   */
  automaton(): { readonly next: Int32Array; readonly ends: (state: number) => boolean } {
    const ending = this.#ending;
    return { next: this.#next, ends: (state) => ending[state >> 7] !== 0 };
  }

  /** The literals `text` holds (as `text.toLowerCase().includes(literal)` would say, for lower-case literals). */
  presentIn(text: string): Set<string> {
    const out = new Set<string>();
    const all = this.literals.length;
    this.#scan(text, (k) => out.add(this.literals[k]!).size === all);
    return out;
  }

  /**
   * {@link presentIn}, and whether `text` holds a character whose code is below 128 and marked 1 in
   * `flags` (128 entries): the raw masking's question whether a window holds a control drawn as
   * nothing (../secrets/mask-bytes.ts) answered in the same pass, not by a second scan of the text.
   */
  presentAndFlagged(text: string, flags: Uint8Array): { present: Set<string>; flagged: boolean } {
    const present = new Set<string>();
    // Never stopped early: the flag needs every character.
    const flagged = this.#scan(
      text,
      (k) => {
        present.add(this.literals[k]!);
        return false;
      },
      flags,
    );
    return { present, flagged };
  }

  /** Whether `text` holds any of the literals. */
  anyIn(text: string): boolean {
    let any = false;
    this.#scan(text, () => (any = true));
    return any;
  }
}
