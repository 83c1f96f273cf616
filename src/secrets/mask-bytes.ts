/**
 * Masking in raw output bytes. The bytes are read as a terminal shows them: control sequences
 * (colours, cursor moves) are skipped, so a secret coloured in the middle or written by several
 * writes is seen whole; the payload of an OSC or DCS string (a window title, a shell's command
 * line mark) is looked at on its own. The secret's visible bytes become `*`; the sequences between
 * them and every other byte stay as they were, so the length and every offset are unchanged.
 * A control the terminal draws nothing for (NUL, BEL, SO, SI, DEL, ...) inside a token does not
 * split it: the text is looked at a second time without them, and what either look finds is masked.
 */
import { MASK_BYTE, merge, type LineState, type Masker, type MaskRange } from "./masker.ts";

const ESC = 0x1b;
const LF = 0x0a;

/**
 * The bytes xterm draws nothing for and that leave its cursor where it was: NUL to BEL, SO to SUB,
 * FS to US, DEL (BS, HT, LF, VT, FF and CR move it; ESC starts a sequence). A terminal replaying
 * `ghp_AB<NUL>CD` shows `ghp_ABCD`, and the text views drop them too.
 */
export const SILENT = new Uint8Array(256);
for (const [from, to] of [
  [0x00, 0x07],
  [0x0e, 0x1a],
  [0x1c, 0x1f],
  [0x7f, 0x7f],
] as const)
  SILENT.fill(1, from, to + 1);
const HAS_SILENT = /[\x00-\x07\x0e-\x1a\x1c-\x1f\x7f]/;

/**
 * The visible characters of `bytes` as a Latin-1 string (one character per byte: secrets are
 * ASCII), and, when `withMap`, the byte each came from (-1 for the line breaks put around a string
 * sequence's payload). The map (4 bytes a byte) is asked for only once a secret was found: most
 * windows have none, and a 1 MiB window of binary output made it for nothing (issue 37 item 6).
 * With `silent`, the SILENT bytes are left out as well. Whether the text holds any is told by the
 * keyword scan that reads it anyway (maskIn), not by a scan here: a regular expression for them
 * cost 56 us on 72 KB of text with accents, a third of the masking of a page of it.
 */
function visibleOf(bytes: Uint8Array, withMap: boolean, silent = false): { text: string; map: Int32Array | undefined } {
  if (!silent && bytes.indexOf(ESC) < 0)
    return { text: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1"), map: undefined };
  const n = bytes.length;
  const codes = new Uint8Array(n);
  const map = withMap ? new Int32Array(n) : undefined;
  let k = 0;
  for (let i = 0; i < n; ) {
    const b = bytes[i]!;
    if (b !== ESC) {
      if (silent) {
        if (SILENT[b] === 0) {
          codes[k] = b;
          if (map) map[k] = i;
          k++;
        }
        i++;
        continue;
      }
      // The bytes up to the next ESC in a loop of their own (no call, no test of `silent`, a byte).
      let j = i;
      if (map)
        do {
          codes[k] = bytes[j]!;
          map[k++] = j++;
        } while (j < n && bytes[j] !== ESC);
      else
        do codes[k++] = bytes[j++]!;
        while (j < n && bytes[j] !== ESC);
      i = j;
      continue;
    }
    const next = bytes[i + 1];
    if (next === 0x5b) {
      // CSI: parameters and intermediates, then one final byte.
      let j = i + 2;
      while (j < n && bytes[j]! >= 0x20 && bytes[j]! <= 0x3f) j++;
      i = j + 1;
    } else if (next === 0x5d || next === 0x50 || next === 0x5f || next === 0x5e || next === 0x58) {
      // OSC, DCS, APC, PM, SOS: a string up to BEL or ST, looked at as a line of its own.
      if (map) map[k] = -1;
      codes[k++] = LF;
      let j = i + 2;
      for (; j < n && bytes[j] !== 0x07 && !(bytes[j] === ESC && bytes[j + 1] === 0x5c); j++)
        if (!silent || SILENT[bytes[j]!] === 0) {
          codes[k] = bytes[j]!;
          if (map) map[k] = j;
          k++;
        }
      if (map) map[k] = -1;
      codes[k++] = LF;
      i = j >= n ? n : bytes[j] === 0x07 ? j + 1 : j + 2;
    } else {
      // ESC, intermediates, one final byte.
      let j = i + 1;
      while (j < n && bytes[j]! >= 0x20 && bytes[j]! <= 0x2f) j++;
      i = j + 1;
    }
  }
  return { text: Buffer.from(codes.buffer, 0, k).toString("latin1"), map: map?.subarray(0, k) };
}

/**
 * `bytes` with their secrets masked (a copy when any was found, else `bytes` itself), and the byte
 * ranges masked (from the first to just past the last byte of each secret).
 */
export function maskBytes(
  bytes: Uint8Array,
  masker: Masker,
  state: LineState = { inKey: false },
): { bytes: Uint8Array; ranges: MaskRange[] } {
  if (bytes.length === 0) return { bytes, ranges: [] };
  const before = { ...state };
  const found = { bytes, ranges: [] as MaskRange[] };
  const quiet = maskIn(bytes, visibleOf(bytes, false).text, false, masker, state, found);
  if (!quiet) return found;
  // Again without the controls drawn as nothing (on a copy of the state: the first look carries it on);
  // a secret both looks found, or the second found longer, is one range.
  maskIn(bytes, visibleOf(bytes, false, true).text, true, masker, before, found);
  return { bytes: found.bytes, ranges: merge(found.ranges) };
}

/**
 * The secrets of `text` (the visible text of `bytes`, `silent` ones left out or not) masked in
 * `into`; returns whether `text` holds a SILENT byte (the keyword scan notes it on its way).
 */
function maskIn(
  bytes: Uint8Array,
  text: string,
  silent: boolean,
  masker: Masker,
  state: LineState,
  into: { bytes: Uint8Array; ranges: MaskRange[] },
): boolean {
  const { present, flagged } = masker.keywordsAndFlagIn(text, SILENT, HAS_SILENT);
  // Lower case is looked at only to find the lines of the keywords present (findInLines).
  const lower = present.size > 0 ? text.toLowerCase() : text;
  const found = masker.findInLines(text, lower, present, state);
  if (found.length === 0) return flagged;
  // The same parse again, with the byte of each character this time (undefined: the text is the bytes).
  const map = visibleOf(bytes, true, silent).map;
  for (const r of found) {
    if (into.bytes === bytes) into.bytes = Uint8Array.from(bytes);
    const out = into.bytes;
    let first = -1;
    let last = -1;
    for (let c = r.start; c < r.end; c++) {
      const at = map ? map[c]! : c;
      if (at < 0) continue;
      out[at] = MASK_BYTE;
      if (first < 0) first = at;
      last = at;
    }
    if (first >= 0) into.ranges.push({ start: first, end: last + 1 });
  }
  return flagged;
}
