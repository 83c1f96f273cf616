/**
 * What may be a piece of a token: a run of its characters that looks random (issue 38). A piece alone
 * is too short, or too plain, for any rule; the readers look for one where its rest may come from
 * bytes they have not looked at yet: a live read holds it back for a moment (./live-hold.ts), and a
 * window still showing one once masked is masked again with farther bytes around it (./masking.ts).
 */

/** The shortest run taken for a piece: a leak is 12 characters of a secret in a row. */
export const PIECE = 12;

/**
 * What each byte is in a run of a token's characters: letters, digits and `+`. `/`, `-`, `_` and
 * `=` end a run, so that paths (`src/views/text12.ts`), target triples (`x86_64-linux-gnu`), names
 * (`MAX_HELD`) and `KEY=value` are runs of their parts; a token's random part seldom holds them, and
 * its longer part is still a run. 0: not, else a class.
 */
const KIND = new Uint8Array(256);
const [UPPER, LOWER, DIGIT, OTHER, HEXLETTER] = [1, 2, 4, 8, 16];
for (let c = 0x41; c <= 0x5a; c++) KIND[c] = UPPER | (c <= 0x46 ? HEXLETTER : 0);
for (let c = 0x61; c <= 0x7a; c++) KIND[c] = LOWER | (c <= 0x66 ? HEXLETTER : 0);
for (let c = 0x30; c <= 0x39; c++) KIND[c] = DIGIT;
KIND[0x2b] = OTHER;

/**
 * Whether the run `bytes[from, to)` (PIECE or more of a token's characters) may be a piece of a
 * token: four letters or more, and two digits or more, or both cases changing from lower to upper
 * twice or more (`aBcDe…`, not a CamelCase word such as `ReferenceError`); not hex (commit ids, sums).
 */
function looksLikePiece(bytes: Uint8Array, from: number, to: number): boolean {
  let letters = 0;
  let digit = 0;
  let rises = 0;
  let hex = true;
  for (let i = from; i < to; i++) {
    const k = KIND[bytes[i]!]!;
    if (k & (UPPER | LOWER)) {
      letters++;
      if ((k & HEXLETTER) === 0) hex = false;
      if (k & UPPER && i > from && KIND[bytes[i - 1]!]! & LOWER) rises++;
    } else if (k & DIGIT) digit++;
    else hex = false;
  }
  return !hex && letters >= 4 && (digit >= 2 || rises >= 2);
}

/**
 * Whether the run `bytes[from, to)` may be a piece of a token where the bytes around it may draw out
 * of order: looksLikePiece, or a digit or a rise from lower to upper case at all (`HWACWciBQd2G`);
 * not a plain word of one case, not hex.
 */
function mayBePiece(bytes: Uint8Array, from: number, to: number): boolean {
  let mixed = false;
  let hex = true;
  for (let i = from; i < to; i++) {
    const k = KIND[bytes[i]!]!;
    if (k & (UPPER | LOWER) && (k & HEXLETTER) === 0) hex = false;
    if (k & DIGIT || (k & UPPER && i > from && KIND[bytes[i - 1]!]! & LOWER)) mixed = true;
    if (k & OTHER) hex = false;
  }
  return !hex && mixed;
}

/** What a path is written in, to find where one that a run is part of begins. */
const PATH = new Uint8Array(256);
for (let c = 0; c < 256; c++) if (KIND[c] !== 0) PATH[c] = 1;
for (const c of "/._~-") PATH[c.charCodeAt(0)] = 1;

/**
 * Whether the run at `start` is a segment of a path (`/home/me/Projects2026`, `~/x`, `./x`): never a
 * piece. Asked of runs in order (`start` never goes back): the stretch of path characters a run is
 * in is measured back only to where the last run's was, so a page that is one long path of runs
 * (`/aB3dE5fG7hJ9kL/aB3dE5fG7hJ9kL/…`) costs a pass over it, not one back to its start a run
 * (2.4 s a 512 KiB window, quadratic).
 */
function pathCursor(bytes: Uint8Array): (start: number) => boolean {
  // bytes[from, to) are path characters and `from` begins their stretch (-1: nothing known yet).
  let [from, to] = [-1, -1];
  return (start) => {
    if (bytes[start - 1] !== 0x2f) return false;
    let j = start - 1;
    while (j > 0 && PATH[bytes[j - 1]!] === 1) {
      if (j <= to && j > from) {
        j = from;
        break;
      }
      j--;
    }
    [from, to] = [j, start];
    const first = bytes[j];
    return first === 0x2f || first === 0x7e || first === 0x2e;
  };
}

/** What follows ESC to open a string the terminal does not draw (OSC, DCS, SOS, PM, APC). */
const STRING_OPENER = new Uint8Array(256);
for (const c of "]PX^_") STRING_OPENER[c.charCodeAt(0)] = 1;
const [ESC, BEL, BACKSLASH] = [0x1b, 0x07, 0x5c];

/**
 * Whether `at` lies inside such a string: the last opener at or before it is not ended (by BEL or
 * ESC \\ from the opener on) before it. Asked of runs in order (`at` never goes back): the opener and
 * the end are looked for forward from where the last question left them, so a page opened by a
 * string that never ends (`ESC]0;` and 1 MiB of runs) costs a pass over it, not two a run (100 s a
 * 1 MiB window, quadratic).
 */
function stringCursor(bytes: Uint8Array): (at: number) => boolean {
  const opener = (from: number) => {
    for (let i = bytes.indexOf(ESC, from); i >= 0; i = bytes.indexOf(ESC, i + 1)) if (STRING_OPENER[bytes[i + 1] ?? 0] === 1) return i;
    return -1;
  };
  const ender = (from: number) => {
    for (let i = from; i < bytes.length; i++) if (bytes[i] === BEL || (bytes[i] === ESC && bytes[i + 1] === BACKSLASH)) return i;
    return -1;
  };
  let open = -1;
  let next = opener(0);
  // The first end at or after `open` (-1: none), once asked; an end found for an earlier opener is
  // still the first for a later one that it is not before.
  let end: number | undefined;
  return (at) => {
    while (next >= 0 && next <= at) {
      open = next;
      next = opener(open + 1);
      if (end !== undefined && end >= 0 && end < open) end = undefined;
    }
    if (open < 0) return false;
    end ??= ender(open);
    return end < 0 || end > at;
  };
}

/**
 * Calls `visit` with each run of PIECE or more of a token's characters (KIND) in `bytes`, whole and
 * in order (as the regular expression `[A-Za-z0-9+]{12,}` finds them), until it returns true. Looks
 * at every PIECE-th byte only (each such run holds one) and measures the run around it: the regular
 * expression tried every position of a plain log's short words, 112 us a 64 KiB page, most of what
 * masking a page of such a log cost.
 */
export function tokenRuns(bytes: Uint8Array, visit: (start: number, end: number) => boolean): void {
  const n = bytes.length;
  for (let i = PIECE - 1; i < n; i += PIECE) {
    if (KIND[bytes[i]!] === 0) continue;
    let start = i;
    while (start > 0 && KIND[bytes[start - 1]!] !== 0) start--;
    let end = i + 1;
    while (end < n && KIND[bytes[end]!] !== 0) end++;
    // The next run begins past `end` (not of a run): it holds end - 1 + PIECE or a later one looked at.
    i = end - 1;
    if (end - start >= PIECE && visit(start, end)) return;
  }
}

/**
 * The first run in `bytes` that may be a piece of a token (`loose`: mayBePiece, else looksLikePiece),
 * outside the strings a terminal does not draw (a window title, a shell's `ESC]633;P;Cwd=…` mark:
 * what they carry is never assembled with what is drawn), and for which `ok(start, end)` holds.
 */
export function firstPiece(
  bytes: Uint8Array,
  ok: (start: number, end: number) => boolean,
  loose = false,
): { start: number; end: number } | undefined {
  const looks = loose ? mayBePiece : looksLikePiece;
  const [inPath, inString] = [pathCursor(bytes), stringCursor(bytes)];
  let found: { start: number; end: number } | undefined;
  tokenRuns(bytes, (start, end) => {
    if (!looks(bytes, start, end) || inPath(start) || inString(start) || !ok(start, end)) return false;
    found = { start, end };
    return true;
  });
  return found;
}
