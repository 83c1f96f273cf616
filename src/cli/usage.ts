/**
 * The wording of usage errors, shared by every command so they read alike: `derun: <message>`, one
 * line, user input quoted and cut to {@link MAX_SHOWN} characters, a "did you mean" where a near
 * name exists. `derun run` loads it too: it imports nothing the dispatcher does not load already.
 */
import { DerunError } from "../core/errors.ts";

/** The most characters of user input a message quotes. */
export const MAX_SHOWN = 100;

/** `input` as a quoted one-line string of at most {@link MAX_SHOWN} characters (then an ellipsis). */
export function shown(input: string): string {
  const cut = input.length > MAX_SHOWN ? `${input.slice(0, MAX_SHOWN)}…` : input;
  // JSON quoting escapes newlines and other control characters, so the message stays one line.
  return JSON.stringify(cut);
}

/** Like {@link shown}, without the quotes. */
export const bounded = (input: string): string => shown(input).slice(1, -1);

/** A DerunError `usage` (exit 2). */
export const usageError = (message: string): DerunError => new DerunError("usage", message);

/**
 * The candidate closest to `input` when it is a plausible typo (at most a third of its letters
 * wrong, or `input` a prefix of exactly one), else undefined.
 */
export function closest(input: string, candidates: readonly string[]): string | undefined {
  if (input.length === 0 || input.length > 64) return undefined;
  const prefixed = candidates.filter((name) => name.startsWith(input));
  if (prefixed.length === 1) return prefixed[0];
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(input.length / 3)) + 1;
  for (const name of candidates) {
    const distance = editDistance(input, name);
    if (distance < bestDistance) [best, bestDistance] = [name, distance];
  }
  return best;
}

/** ` (did you mean "x"?)` or nothing. */
export const didYouMean = (input: string, candidates: readonly string[], quote = (s: string) => `"${s}"`): string => {
  const near = closest(input, candidates);
  return near === undefined ? "" : ` (did you mean ${quote(near)}?)`;
};

/** Levenshtein distance with transpositions counted as one edit (optimal string alignment). */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}
