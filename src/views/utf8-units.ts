/**
 * Output bytes decoded for the grid of ./drawn-by.ts: UTF-16 units, each with the bytes of the
 * character it came from, so a masked cell can be carried back to the bytes that drew it.
 */
import { isAscii } from "node:buffer";

/**
 * `bytes` as UTF-16 text and, for each unit, the bytes of the character it came from (a surrogate
 * pair's two units share theirs); none for ASCII, where unit i is byte i. Malformed UTF-8 becomes
 * U+FFFD, one for each maximal bad part.
 */
export function decodeUnits(bytes: Uint8Array, slow: boolean): { text: string; from?: Int32Array; to?: Int32Array } {
  if (!slow && isAscii(bytes)) return { text: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1") };
  const n = bytes.length;
  const units = new Uint16Array(n);
  const from = new Int32Array(n);
  const to = new Int32Array(n);
  const { k } = fillUnits(bytes, 0, n, units, from, to);
  const text = new TextDecoder("utf-16le").decode(units.subarray(0, k));
  return { text, from: from.subarray(0, k), to: to.subarray(0, k) };
}

/** UTF-16 units a piece of {@link UnitPieces} holds at most (and one more for a surrogate pair's second). */
const PIECE_UNITS = 1 << 16;

/**
 * {@link decodeUnits}'s fast way a piece at a time: the same units, each piece ending on a whole
 * character, in three arrays made once and filled again for each piece. A 1 MiB window of binary
 * output decoded at once made 10 bytes a byte of arrays and a 2 MB text, all garbage at once: most
 * of what one read of such a window added to `derun mcp`'s peak (docs/performance.md, issue 37 item 6).
 */
export class UnitPieces {
  readonly #units = new Uint16Array(PIECE_UNITS + 1);
  readonly #from = new Int32Array(PIECE_UNITS + 1);
  readonly #to = new Int32Array(PIECE_UNITS + 1);
  #at = 0;

  constructor(private readonly bytes: Uint8Array) {}

  /** The next piece (its `from` and `to` valid until the next call), or undefined at the end. */
  next(): { text: string; from: Int32Array; to: Int32Array } | undefined {
    const { bytes } = this;
    const n = bytes.length;
    if (this.#at >= n) return undefined;
    const units = this.#units;
    const from = this.#from;
    const to = this.#to;
    const { k, i } = fillUnits(bytes, this.#at, PIECE_UNITS, units, from, to);
    this.#at = i;
    return { text: new TextDecoder("utf-16le").decode(units.subarray(0, k)), from: from.subarray(0, k), to: to.subarray(0, k) };
  }
}

/**
 * Decodes `bytes` from `start` into `units` (at most `limit` of them, and one more for a surrogate
 * pair's second), each unit's character's bytes into `from` and `to`: how many units (`k`) and the
 * index of the first byte not decoded (`i`, always a character's first).
 */
function fillUnits(bytes: Uint8Array, start: number, limit: number, units: Uint16Array, from: Int32Array, to: Int32Array) {
  const n = bytes.length;
  let k = 0;
  let i = start;
  while (i < n && k < limit) {
    const packed = codePointAt(bytes, i);
    const cp = packed >>> 3;
    const len = packed & 7;
    if (cp === ZERO_WIDTH_NO_BREAK) {
      // A terminal draws U+FEFF in no cell. Kept as a unit, a first one was also dropped by the
      // decoder as a byte order mark, and every later cell was mapped to the byte before its own.
      i += len;
      continue;
    }
    if (cp > 0xffff) {
      units[k] = 0xd800 + ((cp - 0x10000) >> 10);
      from[k] = i;
      to[k++] = i + len;
      units[k] = 0xdc00 + ((cp - 0x10000) & 0x3ff);
    } else units[k] = cp;
    from[k] = i;
    to[k++] = i + len;
    i += len;
  }
  return { k, i };
}

/**
 * The character at `bytes[i]` and its length (U+FFFD for a malformed part), as `cp * 8 + len`: a
 * number, not an object (an object and an array per character were most of what a 1 MiB read of
 * binary output left for the collector).
 */
function codePointAt(bytes: Uint8Array, i: number): number {
  const b = bytes[i]!;
  if (b < 0x80) return b * 8 + 1;
  let need: number;
  let cp: number;
  let lo = 0x80;
  let hi = 0xbf;
  if (b >= 0xc2 && b <= 0xdf) {
    need = 1;
    cp = b & 0x1f;
  } else if (b >= 0xe0 && b <= 0xef) {
    need = 2;
    cp = b & 0x0f;
    if (b === 0xe0) lo = 0xa0;
    if (b === 0xed) hi = 0x9f;
  } else if (b >= 0xf0 && b <= 0xf4) {
    need = 3;
    cp = b & 0x07;
    if (b === 0xf0) lo = 0x90;
    if (b === 0xf4) hi = 0x8f;
  } else return REPLACEMENT * 8 + 1;
  for (let j = 1; j <= need; j++) {
    const c = bytes[i + j];
    if (c === undefined || c < lo || c > hi) return REPLACEMENT * 8 + j;
    cp = (cp << 6) | (c & 0x3f);
    lo = 0x80;
    hi = 0xbf;
  }
  return cp * 8 + need + 1;
}

const REPLACEMENT = 0xfffd;
const ZERO_WIDTH_NO_BREAK = 0xfeff;
