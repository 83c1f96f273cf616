/**
 * Sets of UTF-16 code units, as sorted inclusive ranges, for deciding whether two parts of a
 * regular expression can match the same character (`\d` and `[0-9]` can; `\d` and `\.` cannot).
 * The patterns are compiled without the `u` flag, so a character is one code unit.
 */

/** Sorted, disjoint, non-adjacent inclusive ranges: [lo0, hi0, lo1, hi1, ...]. */
export type CharSet = readonly number[];

const MAX = 0xffff;

export const EMPTY: CharSet = [];
export const ANY: CharSet = [0, MAX];

export const charSet = (...ranges: Array<readonly [number, number]>): CharSet =>
  ranges.reduce<CharSet>((set, [lo, hi]) => union(set, [lo, hi]), EMPTY);
export const oneChar = (code: number): CharSet => [code, code];

export const DIGIT = charSet([0x30, 0x39]);
export const WORD = charSet([0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]);
/** JavaScript's `\s`: WhiteSpace and LineTerminator. */
export const SPACE = charSet(
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
);
/** `.` without the `s` flag: anything but a line terminator. */
export const DOT = negate(charSet([0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]));

export function union(a: CharSet, b: CharSet): CharSet {
  const ranges: Array<[number, number]> = [];
  for (let i = 0; i < a.length; i += 2) ranges.push([a[i]!, a[i + 1]!]);
  for (let i = 0; i < b.length; i += 2) ranges.push([b[i]!, b[i + 1]!]);
  ranges.sort((x, y) => x[0] - y[0]);
  const out: number[] = [];
  for (const [lo, hi] of ranges) {
    if (out.length > 0 && lo <= out[out.length - 1]! + 1) out[out.length - 1] = Math.max(out[out.length - 1]!, hi);
    else out.push(lo, hi);
  }
  return out;
}

export function negate(a: CharSet): CharSet {
  const out: number[] = [];
  let next = 0;
  for (let i = 0; i < a.length; i += 2) {
    if (a[i]! > next) out.push(next, a[i]! - 1);
    next = a[i + 1]! + 1;
  }
  if (next <= MAX) out.push(next, MAX);
  return out;
}

/** Whether some character is in both. */
export function overlaps(a: CharSet, b: CharSet): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i + 1]! < b[j]!) i += 2;
    else if (b[j + 1]! < a[i]!) j += 2;
    else return true;
  }
  return false;
}

/**
 * The set with the other case of each letter added, as `i` matching sees them. Ranges wider than
 * a few thousand characters are kept as they are: they already meet nearly every other set.
 */
export function caseFolded(a: CharSet): CharSet {
  const extra: number[] = [];
  for (let i = 0; i < a.length; i += 2) {
    if (a[i + 1]! - a[i]! > 4096) continue;
    for (let c = a[i]!; c <= a[i + 1]!; c++) {
      const s = String.fromCharCode(c);
      for (const other of [s.toLowerCase(), s.toUpperCase()]) {
        if (other.length === 1 && other !== s) extra.push(other.charCodeAt(0), other.charCodeAt(0));
      }
    }
  }
  return union(a, union(EMPTY, extra));
}
