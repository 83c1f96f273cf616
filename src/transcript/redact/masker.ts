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
}

const PEM_BEGIN = /-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----/;
const PEM_END = /-----END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----/;

export interface MaskerOptions {
  readonly rules: readonly RedactRule[];
  /** A candidate any of these matches is left as it is (the user's allow-list). */
  readonly allow?: readonly RegExp[];
  readonly env?: EnvValues;
}

export class Masker {
  readonly #rules: readonly Compiled[];
  readonly #allow: readonly RegExp[];
  readonly #env: EnvValues | undefined;
  /** Every keyword of every rule, lower case. */
  readonly keywords: readonly string[];

  constructor(options: MaskerOptions) {
    this.#rules = options.rules.map((rule) => ({ rule, re: new RegExp(rule.pattern, `${(rule.flags ?? "").replace(/[gd]/g, "")}gd`) }));
    this.#allow = options.allow ?? [];
    this.#env = options.env;
    this.keywords = [...new Set(options.rules.flatMap((r) => r.keywords))];
  }

  /**
   * The secrets of one line (no LF inside), merged and in order. `present`: the keywords that occur
   * in a larger text the line is part of (the others need not be looked for in it).
   */
  find(text: string, state?: LineState, present?: ReadonlySet<string>): MaskRange[] {
    const ranges: MaskRange[] = [];
    if (state?.inKey) {
      const end = PEM_END.exec(text);
      if (end) state.inKey = false;
      const body = end ? text.slice(0, end.index) : text;
      const from = body.length - body.trimStart().length;
      const to = body.trimEnd().length;
      if (to > from) ranges.push({ start: from, end: to });
      if (!end) return ranges;
    }
    let lower: string | undefined;
    for (const { rule, re } of this.#rules) {
      if (rule.keywords.length > 0) {
        let held = false;
        for (const k of rule.keywords) {
          if (present !== undefined && !present.has(k)) continue;
          lower ??= text.toLowerCase(); // only once a keyword may be there
          if ((held = lower.includes(k))) break;
        }
        if (!held) continue;
      }
      re.lastIndex = 0;
      for (let m = re.exec(text); m !== null; m = re.exec(text)) {
        if (m[0].length === 0) re.lastIndex++;
        const groups = m.indices?.groups;
        const span = groups?.s ?? groups?.s2 ?? groups?.s3 ?? m.indices![0]!;
        const secret = text.slice(span[0], span[1]);
        if (!this.#isSecret(rule, secret)) continue;
        ranges.push({ start: span[0], end: span[1] });
      }
    }
    this.#env?.find(text, (start, end) => ranges.push({ start, end }));
    if (state && !state.inKey) {
      const begin = PEM_BEGIN.exec(text);
      if (begin && !PEM_END.test(text.slice(begin.index))) state.inKey = true;
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
    const lower = text.toLowerCase();
    return new Set(this.keywords.filter((k) => lower.includes(k)));
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
function merge(ranges: MaskRange[]): MaskRange[] {
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
