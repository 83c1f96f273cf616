/**
 * Finds the secrets in a line of text and masks them, keeping the line: each character of a
 * secret becomes `*`, so lengths, columns, wraps and byte offsets stay what they were
 * (docs/secrets.md says why). A line is given to a rule only when it holds one of the rule's
 * keywords. A PEM private key spread over lines is followed with a small state per stream: the
 * lines between its BEGIN and END lines are masked whole.
 */
import type { EnvValues } from "./env-values.ts";
import type { RedactRule } from "./rules.ts";
import { entropy, isKeptShape } from "./shapes.ts";
import { gateOf, type Gate } from "./run-gate.ts";
import { LiteralSet } from "../views/literal-set.ts";

/** What every mask character is. */
export const MASK_CHAR = "*";
export const MASK_BYTE = 0x2a;

export interface MaskRange {
  readonly start: number;
  readonly end: number;
}

/** Where a stream of lines is: inside a PEM private key's body or not. One per channel. */
export interface LineState {
  inKey: boolean;
}

interface Compiled {
  readonly rule: RedactRule;
  readonly re: RegExp;
  /** The rule's prefilter (RedactRule.prefilter), when it has one. */
  readonly gate?: Gate;
}

const compile = (rule: RedactRule, flags: string): Compiled => ({
  rule,
  re: new RegExp(rule.pattern, `${(rule.flags ?? "").replace(/[gdm]/g, (f) => (flags.includes(f) ? "" : f))}${flags}`),
  ...(rule.prefilter === undefined ? {} : { gate: gateOf(rule.prefilter) }),
});

export const PEM_BEGIN = /-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----/;
const PEM_END = /-----END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----/;

export interface MaskerOptions {
  readonly rules: readonly RedactRule[];
  /** A candidate any of these matches is left as it is (the user's allow-list). */
  readonly allow?: readonly RegExp[];
  readonly env?: EnvValues;
}

export class Masker {
  readonly #rules: readonly Compiled[];
  /** The rules without keywords (they run on every line), and the others by keyword. */
  readonly #always: readonly Compiled[];
  /** The same, compiled to run over many lines at once (`^` and `$` at each line). */
  readonly #alwaysMultiline: readonly Compiled[];
  readonly #byKeyword = new Map<string, Compiled[]>();
  readonly #allow: readonly RegExp[];
  readonly #env: EnvValues | undefined;
  /** Every keyword of every rule, lower case. */
  readonly keywords: readonly string[];
  /** The keywords' one-pass scanner, made when first needed (null: a keyword it cannot take). */
  #keywordScan: LiteralSet | null | undefined;

  constructor(options: MaskerOptions) {
    this.#rules = options.rules.map((rule) => compile(rule, "gd"));
    this.#allow = options.allow ?? [];
    this.#env = options.env;
    this.keywords = [...new Set(options.rules.flatMap((r) => r.keywords))];
    this.#always = this.#rules.filter((c) => c.rule.keywords.length === 0);
    this.#alwaysMultiline = this.#always.map(({ rule }) => compile(rule, "gdm"));
    for (const c of this.#rules) for (const k of c.rule.keywords) this.#byKeyword.set(k, [...(this.#byKeyword.get(k) ?? []), c]);
  }

  /** The rules to run on a line: those whose keyword it holds (looked for among `present` only), in the rules' order. */
  #rulesFor(text: string, present?: ReadonlySet<string>): readonly Compiled[] {
    const keywords: Iterable<string> = present ?? this.keywords;
    if ((present ? present.size : this.keywords.length) === 0) return this.#always;
    const lower = text.toLowerCase();
    const chosen = new Set<Compiled>(this.#always);
    for (const k of keywords) if (lower.includes(k)) for (const c of this.#byKeyword.get(k)!) chosen.add(c);
    return chosen.size === this.#always.length ? this.#always : this.#rules.filter((c) => chosen.has(c));
  }

  /**
   * The secrets of one line (no LF inside), merged and in order. `present`: the keywords that occur
   * in a larger text the line is part of (the others need not be looked for in it).
   */
  find(text: string, state?: LineState, present?: ReadonlySet<string>): MaskRange[] {
    const ranges: MaskRange[] = [];
    if (state?.inKey) {
      const end = text.includes("-----END") ? PEM_END.exec(text) : null;
      if (end) state.inKey = false;
      const body = end ? text.slice(0, end.index) : text;
      const from = body.length - body.trimStart().length;
      const to = body.trimEnd().length;
      if (to > from) ranges.push({ start: from, end: to });
      if (!end) return ranges;
    }
    for (const compiled of this.#rulesFor(text, present)) this.#run(compiled, text, 0, ranges);
    this.#env?.find(text, (start, end) => ranges.push({ start, end }));
    if (state && !state.inKey && text.includes("-----BEGIN")) {
      const begin = PEM_BEGIN.exec(text);
      if (begin && !PEM_END.test(text.slice(begin.index))) state.inKey = true;
    }
    return merge(ranges);
  }

  /** Rule `rule` (as `re`) over `text`: its secrets, at `offset` past where `text` starts. */
  #run({ rule, re, gate }: Compiled, text: string, offset: number, ranges: MaskRange[]): void {
    // Over 64 KiB of plain log the gate costs 0.006 ms, the base-64 rule's pattern 0.13 ms.
    if (gate && !gate.test(text)) return;
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      if (m[0].length === 0) re.lastIndex++;
      const groups = m.indices?.groups;
      const span = groups?.s ?? groups?.s2 ?? groups?.s3 ?? m.indices![0]!;
      if (this.#isSecret(rule, text.slice(span[0], span[1]))) ranges.push({ start: offset + span[0], end: offset + span[1] });
    }
  }

  /**
   * The secrets of a text of many lines (LF between them), as {@link find} would find them line by
   * line, but at the cost of a few passes over the whole: the rules without keywords and the
   * environment's values over all of it at once, the others only on the lines that hold one of
   * their keywords (`present`: those the text holds, `lower` the text in lower case). A text with a
   * PEM key's BEGIN line (or inside one) goes line by line.
   */
  findInLines(text: string, lower: string, present: ReadonlySet<string>, state: LineState): MaskRange[] {
    const ranges: MaskRange[] = [];
    if (state.inKey || text.includes("-----BEGIN")) {
      for (let start = 0; start <= text.length; ) {
        let end = text.indexOf("\n", start);
        if (end < 0) end = text.length;
        for (const r of this.find(text.slice(start, end), state, present)) ranges.push({ start: start + r.start, end: start + r.end });
        start = end + 1;
      }
      return ranges;
    }
    for (const compiled of this.#alwaysMultiline) this.#run(compiled, text, 0, ranges);
    this.#env?.find(text, (start, end) => ranges.push({ start, end }));
    if (present.size > 0) {
      const starts = new Set<number>();
      for (const k of present) {
        // Where the line of the last occurrence ends: one further on the same line adds nothing, and
        // is not looked back from (a 1 MiB line of `key key …` took 1 s, a look back to its start each).
        let end = -1;
        for (let i = lower.indexOf(k); i >= 0; i = lower.indexOf(k, i + k.length)) {
          if (i < end) continue;
          starts.add(text.lastIndexOf("\n", i) + 1);
          end = text.indexOf("\n", i);
          if (end < 0) end = text.length;
        }
      }
      for (const start of starts) {
        let end = text.indexOf("\n", start);
        if (end < 0) end = text.length;
        const line = text.slice(start, end);
        for (const compiled of this.#rulesFor(line, present))
          if (compiled.rule.keywords.length > 0) this.#run(compiled, line, start, ranges);
      }
    }
    return merge(ranges);
  }

  #isSecret(rule: RedactRule, secret: string): boolean {
    if (rule.minLength !== undefined && secret.length < rule.minLength) return false;
    if (rule.generic && isKeptShape(secret)) return false;
    if (rule.entropy !== undefined && entropy(secret) < rule.entropy) return false;
    return !this.#allow.some((re) => re.test(secret));
  }

  /** The keywords that occur in `text` (lines joined): the others need not be looked for in its lines. */
  keywordsIn(text: string): ReadonlySet<string> {
    // One pass for all of them (views/literal-set.ts), not one per keyword: most of a read's time.
    const scan = (this.#keywordScan ??= LiteralSet.of(this.keywords, { unicodeLower: true }) ?? null);
    if (scan) return scan.presentIn(text);
    const lower = text.toLowerCase();
    return new Set(this.keywords.filter((k) => lower.includes(k)));
  }

  /**
   * {@link keywordsIn}, and whether `text` holds a character below 128 that `flags` (128 entries)
   * marks: one pass over the text for both where the scanner takes the keywords.
   */
  keywordsAndFlagIn(text: string, flags: Uint8Array, flagged: RegExp): { present: ReadonlySet<string>; flagged: boolean } {
    const scan = (this.#keywordScan ??= LiteralSet.of(this.keywords, { unicodeLower: true }) ?? null);
    if (scan) return scan.presentAndFlagged(text, flags);
    return { present: this.keywordsIn(text), flagged: flagged.test(text) };
  }

  /** `text` with its secrets masked, and how many there were. */
  maskLine(text: string, state?: LineState, present?: ReadonlySet<string>): { text: string; count: number } {
    const ranges = this.find(text, state, present);
    return ranges.length === 0 ? { text, count: 0 } : { text: applyMask(text, ranges), count: ranges.length };
  }

  /** Several lines at once (one text, LF between lines), with one state. */
  maskText(text: string, state: LineState = { inKey: false }, present?: ReadonlySet<string>): { text: string; count: number } {
    if (!text.includes("\n")) return this.maskLine(text, state, present);
    let count = 0;
    const lines = text.split("\n").map((line) => {
      const masked = this.maskLine(line, state, present);
      count += masked.count;
      return masked.text;
    });
    return { text: count === 0 ? text : lines.join("\n"), count };
  }
}

/** Overlapping or touching ranges as one, in order. */
export function merge(ranges: MaskRange[]): MaskRange[] {
  if (ranges.length <= 1) return ranges;
  ranges.sort((a, b) => a.start - b.start);
  const out: MaskRange[] = [{ ...ranges[0]! }];
  for (const r of ranges.slice(1)) {
    const last = out[out.length - 1]! as { start: number; end: number };
    if (r.start <= last.end) last.end = Math.max(last.end, r.end);
    else out.push({ ...r });
  }
  return out;
}

/** `text` with each range's characters replaced by MASK_CHAR. */
export function applyMask(text: string, ranges: readonly MaskRange[]): string {
  let out = "";
  let at = 0;
  for (const r of ranges) {
    out += text.slice(at, r.start) + MASK_CHAR.repeat(r.end - r.start);
    at = r.end;
  }
  return out + text.slice(at);
}
