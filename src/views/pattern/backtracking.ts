/**
 * How much work a backtracking engine may do on one line for a pattern, judged from its shape,
 * character sets compared as sets (`\d` and `[0-9]` overlap, `\d` and `\.` do not):
 *
 * - exponential: an unbounded quantifier over a group with one inside (`(a+)+`), or a choice
 *   repeated without bound whose options can match the same text (`(a|aa)+`, `(\w|_)+`, `(a?b?)+`,
 *   `(\d{1,3},?)+`): refused. The same choices repeated a bounded number of times are counted, and
 *   refused past about a thousand ways to match.
 * - polynomial: unbounded quantifiers over overlapping characters in a row (`\d+\d+`, `\s*x?\s*`):
 *   refused. Separated by characters both can take (`a.*b.*c`), each one more multiplies the work
 *   by the line's length: two are allowed on shorter lines, three or more refused.
 *
 * A quantifier with nothing after it that can fail costs nothing (`warning: .*\.c:\d+`).
 */
import { ANY, EMPTY, overlaps, union, type CharSet } from "./charset.ts";
import { parseRegex, type RegexNode } from "./regex-tree.ts";

export interface BacktrackingVerdict {
  /** Why the pattern is refused, or undefined. */
  readonly risk?: string;
  /** Characters of a line it may run on: fewer when its work grows as a higher power of the length. */
  readonly lineChars: number;
  /** Its work on a line of n characters grows as about 2^bits * n^power steps (judged from its shape). */
  readonly power: number;
  readonly bits: number;
}

/** Characters of a line a backtracking engine can run `verdict`'s pattern on in about 2^stepBits steps. */
export const charsWithin = (verdict: BacktrackingVerdict, stepBits: number): number =>
  Math.min(LINE_CHARS, Math.floor(2 ** ((stepBits - verdict.bits) / verdict.power)));

/** Characters of a line a pattern with at most one unbounded quantifier per chain runs on. */
export const LINE_CHARS = 4096;
/** About 2^30 steps on one line is a fraction of a second. */
const STEP_BITS = 30;
/** Ways to match one line through choices that overlap (2^10), before refusing. */
const CHOICE_BITS = 10;

/** A quantifier still able to trade characters with one that comes later. */
interface Loop {
  readonly set: CharSet;
  /** Unbounded quantifiers in its chain, itself included, and the bits of the bounded ones. */
  readonly unbounded: number;
  readonly bits: number;
  /** What was required since it: each must overlap a later quantifier for the two to trade. */
  readonly separators: readonly CharSet[];
}

class Refused extends Error {}

export function judgeBacktracking(source: string, ignoreCase = false): BacktrackingVerdict {
  const tree = parseRegex(source, ignoreCase || /\(\?[ms]*i[ims]*(?:-[ims]*)?:/.test(source));
  try {
    const choiceBits = choices(tree, EMPTY, 1);
    if (choiceBits > CHOICE_BITS) throw new Refused("it can match a line in too many ways (like (a|a){20})");
    const chain = { unbounded: 0, bits: 0 };
    loops(tree, [], false, chain);
    const shape = { power: chain.unbounded + 1, bits: chain.bits + choiceBits };
    const lineChars = charsWithin({ lineChars: 0, ...shape }, STEP_BITS);
    if (lineChars < 256)
      return {
        risk: "it chains three or more unbounded quantifiers over overlapping characters (like a.*b.*c.*d)",
        lineChars: 0,
        ...shape,
      };
    return { lineChars, ...shape };
  } catch (error) {
    if (error instanceof Refused) return { risk: error.message, lineChars: 0, power: Infinity, bits: Infinity };
    throw error;
  }
}

const nullable = (n: RegexNode): boolean =>
  n.kind === "char"
    ? false
    : n.kind === "seq"
      ? n.items.every(nullable)
      : n.kind === "alt"
        ? n.options.some(nullable)
        : n.kind === "repeat"
          ? n.min === 0 || nullable(n.body)
          : true;

/** What a node can start with. */
function first(n: RegexNode): CharSet {
  switch (n.kind) {
    case "char":
      return n.set;
    case "seq": {
      let set = EMPTY;
      for (const item of n.items) {
        set = union(set, first(item));
        if (!nullable(item)) break;
      }
      return set;
    }
    case "alt":
      return n.options.reduce((set, o) => union(set, first(o)), EMPTY);
    case "repeat":
      return n.max === 0 ? EMPTY : first(n.body);
    case "backref":
      return ANY;
    default:
      return EMPTY;
  }
}

/** Every character a node can take. */
const chars = (n: RegexNode): CharSet =>
  n.kind === "char"
    ? n.set
    : n.kind === "seq"
      ? n.items.reduce((s, i) => union(s, chars(i)), EMPTY)
      : n.kind === "alt"
        ? n.options.reduce((s, o) => union(s, chars(o)), EMPTY)
        : n.kind === "repeat"
          ? n.max === 0
            ? EMPTY
            : chars(n.body)
          : n.kind === "backref"
            ? ANY
            : EMPTY;

/** Whether a node holds an unbounded quantifier (a back-reference counts: it takes any length). */
const unbounded = (n: RegexNode): boolean =>
  n.kind === "seq"
    ? n.items.some(unbounded)
    : n.kind === "alt"
      ? n.options.some(unbounded)
      : n.kind === "repeat"
        ? n.max === Infinity || unbounded(n.body)
        : n.kind === "look"
          ? unbounded(n.body)
          : n.kind === "backref";

/** Whether a node holds a choice of how many times (`?`, `{1,3}`) or a back-reference. */
const variable = (n: RegexNode): boolean =>
  n.kind === "seq"
    ? n.items.some(variable)
    : n.kind === "alt"
      ? n.options.some(variable)
      : n.kind === "repeat"
        ? n.min < n.max || variable(n.body)
        : n.kind === "backref";

/** Whether matching the node can fail (so a failure after a quantifier makes it give back characters). */
const mayFail = (n: RegexNode): boolean =>
  n.kind === "char" || n.kind === "assert" || n.kind === "look" || n.kind === "backref"
    ? true
    : n.kind === "seq"
      ? n.items.some(mayFail)
      : n.kind === "alt"
        ? n.options.every(mayFail)
        : n.min > 0 && mayFail(n.body);

/**
 * Bits of ways to match through choices whose options overlap (one character of lookahead cannot
 * tell them apart), each counted as often as it can be passed; `follow` is what may come next.
 */
function choices(n: RegexNode, follow: CharSet, passes: number): number {
  const ambiguous = (ways: number) => {
    if (passes === Infinity) throw new Refused("it repeats a choice whose options can match the same text (like (a|aa)+ or (\\w|_)+)");
    return passes * Math.log2(ways);
  };
  switch (n.kind) {
    case "look":
      return choices(n.body, EMPTY, passes);
    case "seq": {
      let bits = 0;
      let after = follow;
      for (let k = n.items.length - 1; k >= 0; k--) {
        const item = n.items[k]!;
        bits += choices(item, after, passes);
        after = nullable(item) ? union(first(item), after) : first(item);
      }
      return bits;
    }
    case "alt": {
      const heads = n.options.map((o) => (nullable(o) ? union(first(o), follow) : first(o)));
      const clashing = heads.filter((h, k) => heads.some((other, j) => j !== k && overlaps(h, other))).length;
      return (clashing > 1 ? ambiguous(clashing) : 0) + n.options.reduce((bits, o) => bits + choices(o, follow, passes), 0);
    }
    case "repeat": {
      if (n.max === 0) return 0;
      if (n.max === Infinity && unbounded(n.body)) throw new Refused("it nests unbounded quantifiers (like (a+)+)");
      let bits = choices(n.body, n.max > 1 ? union(first(n.body), follow) : follow, passes * n.max);
      // Go round once more or stop: the bounded kind is a choice of counts; the unbounded kind is a loop (see loops).
      if (n.min < n.max && n.max !== Infinity && overlaps(first(n.body), follow)) bits += ambiguous(n.max - n.min + 1);
      return bits;
    }
    default:
      return 0;
  }
}

/**
 * Follows the quantifiers that can still trade characters (`run`) through the node, and records
 * in `chain` the longest chain of them that a later failure makes try every split of a line.
 */
function loops(n: RegexNode, run: readonly Loop[], restMayFail: boolean, chain: { unbounded: number; bits: number }): readonly Loop[] {
  switch (n.kind) {
    case "char":
      return run.filter((l) => overlaps(l.set, n.set)).map((l) => ({ ...l, separators: [...l.separators, n.set] }));
    case "look":
      loops(n.body, [], false, chain);
      return run;
    case "backref":
      return capped([...run, quantifier({ set: ANY, unbounded: 1, bits: 0, separators: [] }, run, restMayFail, chain)]);
    case "seq":
      return n.items.reduce((r, item, k) => loops(item, r, restMayFail || n.items.slice(k + 1).some(mayFail), chain), run);
    case "alt":
      return capped(n.options.flatMap((o) => loops(o, run, restMayFail, chain)));
    case "repeat": {
      if (n.max === 0) return run;
      if (n.max === Infinity || (n.min < n.max && !variable(n.body))) {
        const loop = {
          set: chars(n.body),
          unbounded: n.max === Infinity ? 1 : 0,
          bits: n.max === Infinity ? 0 : Math.log2(n.max - n.min + 1),
          separators: [],
        };
        const longest = quantifier(loop, run, restMayFail, chain);
        // A required first round (`+`) separates the quantifiers before it from later ones.
        return capped([...(n.min > 0 ? loops(n.body, run, true, chain) : run), longest]);
      }
      // A fixed count, or a body with quantifiers of its own: as written out (a few times at most).
      let out = run;
      for (let k = 0; k < Math.min(n.max, 4); k++) {
        const taken = loops(n.body, out, restMayFail || k + 1 < n.min, chain);
        out = k < n.min ? taken : capped([...out, ...taken]);
      }
      return out;
    }
    default:
      return run;
  }
}

/** `loop` with the longest chain it makes with the quantifiers before it (recorded when a failure after it can make them trade). */
function quantifier(loop: Loop, run: readonly Loop[], restMayFail: boolean, chain: { unbounded: number; bits: number }): Loop {
  let longest: Loop = loop;
  for (const earlier of run) {
    if (!restMayFail || !overlaps(earlier.set, loop.set) || !earlier.separators.every((s) => overlaps(s, loop.set))) continue;
    if (loop.unbounded > 0 && earlier.unbounded > 0 && earlier.separators.length === 0) {
      throw new Refused("it puts unbounded quantifiers over overlapping characters next to each other (like \\d+\\d+ or \\s*x?\\s*)");
    }
    if (
      earlier.unbounded + loop.unbounded > longest.unbounded ||
      (earlier.unbounded + loop.unbounded === longest.unbounded && earlier.bits + loop.bits > longest.bits)
    ) {
      longest = { ...loop, unbounded: earlier.unbounded + loop.unbounded, bits: earlier.bits + loop.bits };
    }
  }
  if (restMayFail) {
    chain.unbounded = Math.max(chain.unbounded, longest.unbounded);
    chain.bits = Math.max(chain.bits, longest.bits);
  }
  return longest;
}

/** Runs stay small: past 256 quantifiers, the ones with the shortest chains go. */
const capped = (run: readonly Loop[]): readonly Loop[] =>
  run.length <= 256 ? run : [...run].sort((a, b) => b.unbounded - a.unbounded || b.bits - a.bits).slice(0, 256);
