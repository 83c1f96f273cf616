/**
 * A test-only copy of src/transcript/pieces.ts as it was before the mcpread3 branch (0976e27): the
 * reference firstPiece is held to (../pieces.test.ts).
 *
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

/** Whether the run at `start` is a segment of a path (`/home/me/Projects2026`, `~/x`, `./x`): never a piece. */
function inPath(bytes: Uint8Array, start: number): boolean {
  if (bytes[start - 1] !== 0x2f) return false;
  let j = start - 1;
  while (j > 0 && PATH[bytes[j - 1]!] === 1) j--;
  const first = bytes[j];
  return first === 0x2f || first === 0x7e || first === 0x2e;
}

/** Runs of PIECE or more of a token's characters (KIND): found natively, most output has none. */
const RUN = new RegExp(`[A-Za-z0-9+]{${PIECE},}`, "g");
/** ESC and the byte that opens a string the terminal does not draw (OSC, DCS, SOS, PM, APC). */
const STRING_OPENERS = ["\x1b]", "\x1bP", "\x1bX", "\x1b^", "\x1b_"];

/** Whether `at` lies inside such a string (opened before it, not ended by BEL or ESC \\ before it). */
function inString(text: string, at: number): boolean {
  let open = -1;
  for (const opener of STRING_OPENERS) open = Math.max(open, text.lastIndexOf(opener, at));
  if (open < 0) return false;
  const bel = text.indexOf("\x07", open);
  const st = text.indexOf("\x1b\\", open);
  const end = bel < 0 ? st : st < 0 ? bel : Math.min(bel, st);
  return end < 0 || end > at;
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
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
  const looks = loose ? mayBePiece : looksLikePiece;
  RUN.lastIndex = 0;
  for (let m = RUN.exec(text); m !== null; m = RUN.exec(text)) {
    const [start, end] = [m.index, m.index + m[0].length];
    if (looks(bytes, start, end) && !inPath(bytes, start) && !inString(text, start) && ok(start, end)) return { start, end };
  }
  return undefined;
}
