/**
 * A test-only copy of src/views/may-assemble.ts as it was before the viewcost branch was merged
 * (9a3fd40): the reference ../quick-checks-before-viewcost.test.ts holds the faster checks to. Not to be changed.
 */
/**
 * The quick check before the grid of ./drawn-by.ts: whether a window's bytes can draw anything out
 * of byte order at all. Most output cannot, and this is what keeps the assembled-secret pass off it.
 */

import { controlInside, csiFinal } from "../../../src/views/csi-end.ts";

const LF = 0x0a;

/**
 * Whether `bytes` may hold anything that draws out of order (BS, CR not before LF, a CSI that moves
 * the cursor or edits, ESC 7/8/D/E/M/c): when not, their text is their bytes in order and the grid
 * has nothing to add. Plain output (CR LF line ends and colours included) costs one quick pass.
 */
export function mayAssemble(bytes: Uint8Array): boolean {
  // Output with none of the four bytes (a pipe's plain lines) is told by native searches alone.
  if (bytes.indexOf(0x1b) < 0 && bytes.indexOf(0x0d) < 0 && bytes.indexOf(0x08) < 0 && bytes.indexOf(0x9b) < 0) return false;
  // Then one pass with tables: far cheaper than a native search per CR or ESC of a PTY's coloured lines.
  const n = bytes.length;
  for (let i = 0; i < n; i++) {
    const kind = CANDIDATE[bytes[i]!]!;
    if (kind === 0) continue;
    if (kind === CR) {
      if (bytes[i + 1] !== LF) return true;
    } else if (kind === ESC) {
      if (bytes[i + 1] !== 0x5b) {
        if (ESC_FINAL[bytes[i + 1] ?? 0] === 1) return true;
        continue;
      }
      const j = csiFinal(bytes, i + 2);
      // A control inside the sequence is run and the sequence goes on (a terminal's parser): whatever it ends as may edit.
      if (CSI_FINAL[bytes[j] ?? 0] === 1 || controlInside(bytes, j)) return true;
      i = j;
    } else if (kind === BS || bytes[i - 1] === 0xc2) return true;
  }
  return false;
}

const [BS, CR, ESC, C1_CSI] = [1, 2, 3, 4];
/** A table of 256 bytes, 0 but at the bytes given. */
export const byteTable = (entries: ReadonlyArray<readonly [number, number]>): Uint8Array => {
  const t = new Uint8Array(256);
  for (const [byte, value] of entries) t[byte] = value;
  return t;
};
/** The bytes {@link mayAssemble} looks at twice: BS, CR, ESC, and 0x9b (CSI as C2 9B). */
const CANDIDATE = byteTable([
  [0x08, BS],
  [0x0d, CR],
  [0x1b, ESC],
  [0x9b, C1_CSI],
]);
/** @ A-H J K P X ` a d f s u: the CSIs that move the cursor or edit what is drawn. */
const CSI_FINAL = byteTable([..."@ABCDEFGHJKPX`adfsu"].map((c) => [c.charCodeAt(0), 1] as const));
/** ESC 7, 8, D, E, M, c: save and restore the cursor, index, next line, reverse index, reset. */
const ESC_FINAL = byteTable([..."78DEMc"].map((c) => [c.charCodeAt(0), 1] as const));

/** {@link redraws}'s flags: may move to another row and back (mayMoveRows). */
export const MOVES_ROWS = 1;
/** {@link redraws}'s flags: may go back over drawn text on a line (what ./overwritten-lines.ts looks for). */
export const GOES_BACK = 2;

/**
 * Whether `bytes` may move the cursor to another row and back: a CSI that moves between rows or
 * saves and restores the cursor (CUU, CUD, CNL, CPL, CUP, HVP, VPA, `ESC[s`, `ESC[u`), ESC 7/8/D/E/M/c,
 * or a C1 CSI. The text view puts together what is drawn within a line itself (`\r`, BS, erases and
 * moves along it), and keeps one line a row: only these draw a row it does not show (text placed on
 * another row lands inline there). The text readers' pass (transcript/assembled-text.ts) is kept
 * off every window without one.
 */
export const mayMoveRows = (bytes: Uint8Array): boolean => redraws(bytes, MOVES_ROWS) !== 0;

/**
 * What `bytes` may do besides drawing in order, as flags, in one pass (stopped once all of `want`
 * are found): MOVES_ROWS (see mayMoveRows), GOES_BACK: a BS, a CR not before LF, ESC 8, a CSI that
 * moves back along the line or anywhere (D G H f ` u Z), a control inside a CSI, or a C1 CSI. A line
 * with none of these shows everything drawn on it (./overwritten-lines.ts finds no line). A CR that
 * ends `bytes` counts unless `openCr` is false (the caller looks at the byte after it).
 */
export function redraws(bytes: Uint8Array, want: number = MOVES_ROWS | GOES_BACK, openCr = true): number {
  if (c1Csi(bytes)) return want;
  let flags = (want & GOES_BACK) !== 0 && bytes.indexOf(0x08) >= 0 ? GOES_BACK : 0;
  if (flags === want) return flags;
  const esc = bytes.indexOf(0x1b);
  // No escape: only a CR can go back (a build log's CR LF ends are looked at a word at a time).
  if (esc < 0) return (want & GOES_BACK) !== 0 && (flags !== 0 || loneCr(bytes, openCr)) ? GOES_BACK : 0;
  const n = bytes.length;
  let i = esc;
  if ((flags & want) !== want && (want & GOES_BACK) !== 0) {
    // Escapes and CRs (a colour log's are dense) in one pass over the bytes from the first,
    // until something goes back; then only the escapes, the next found a word at a time.
    const cr = bytes.indexOf(0x0d);
    for (i = cr >= 0 && cr < esc ? cr : esc; i < n && (flags & GOES_BACK) === 0; i++) {
      const b = bytes[i]!;
      if (b > 0x1b) continue; // most bytes: one compare
      if (b === 0x0d) {
        if (i < n - 1 ? bytes[i + 1] !== 0x0a : openCr) flags |= GOES_BACK;
      } else if (b === 0x1b) {
        const j = escapeAt(bytes, i);
        flags |= escapeFlags(bytes, i, j);
        i = j;
      }
    }
    if ((flags & want) === want || i >= n) return flags & want;
    i = bytes.indexOf(0x1b, i);
  }
  const words = wordsOf(bytes);
  for (; i >= 0; ) {
    const j = escapeAt(bytes, i);
    flags |= escapeFlags(bytes, i, j);
    if ((flags & want) === want) return want;
    i = nextEsc(bytes, words, j + 1);
  }
  return flags & want;
}

/** The last byte of the escape sequence at `i` as these checks take it: a CSI's final (or the control inside it), else the ESC itself. */
const escapeAt = (bytes: Uint8Array, i: number): number => (bytes[i + 1] === 0x5b ? csiFinal(bytes, i + 2) : i);

/** What the escape sequence at `i`, taken to end at `j` ({@link escapeAt}), may do. */
function escapeFlags(bytes: Uint8Array, i: number, j: number): number {
  // As in mayAssemble: a control inside a CSI leaves its end unknown here (its flags are both).
  if (j > i) return j < bytes.length ? FINAL_FLAGS[bytes[j]!]! : 0;
  return ESC_FLAGS[bytes[i + 1] ?? 0]!;
}

/** `bytes` from their first word boundary as words (4 bytes), and where that boundary is. */
function wordsOf(bytes: Uint8Array): { words: Uint32Array; head: number } {
  const head = (4 - (bytes.byteOffset & 3)) & 3;
  const n = bytes.length;
  return { words: n >= head + 4 ? new Uint32Array(bytes.buffer, bytes.byteOffset + head, (n - head) >> 2) : NO_WORDS, head };
}

const NO_WORDS = new Uint32Array(0);

/**
 * The next ESC from `from`, or -1: a word at a time (a progress line's escapes are a hundred bytes
 * apart, a colour log's a few: a native search for each cost more in both).
 */
function nextEsc(bytes: Uint8Array, { words, head }: { words: Uint32Array; head: number }, from: number): number {
  const n = bytes.length;
  let i = from;
  for (; i < n && (i < head || ((i - head) & 3) !== 0); i++) if (bytes[i] === 0x1b) return i;
  const count = words.length;
  for (let k = (i - head) >> 2; k < count; k++) {
    // A zero byte once XORed with four ESCs: the word holds one.
    const x = words[k]! ^ 0x1b1b1b1b;
    if (((x - 0x01010101) & ~x & 0x80808080) !== 0) break;
    i = head + (k + 1) * 4;
  }
  for (; i < n; i++) if (bytes[i] === 0x1b) return i;
  return -1;
}

/** Whether `bytes` hold a C1 CSI (C2 9B; 0x9B alone is a byte inside many UTF-8 characters). */
function c1Csi(bytes: Uint8Array): boolean {
  for (let i = bytes.indexOf(0x9b); i >= 0; i = bytes.indexOf(0x9b, i + 1)) if (bytes[i - 1] === 0xc2) return true;
  return false;
}

/**
 * Whether `bytes` hold a CR not before LF (one that ends them only when `openCr`). Far apart (a
 * colour log's line ends), each CR is found natively; once two come close (a build log's CR LF
 * every few dozen bytes, too close for a native search each), a word (4 bytes) at a time.
 */
function loneCr(bytes: Uint8Array, openCr: boolean): boolean {
  const n = bytes.length;
  if (n > 0 && bytes[n - 1] === 0x0d && openCr) return true;
  let last = -DENSE;
  for (let i = bytes.indexOf(0x0d); i >= 0; i = bytes.indexOf(0x0d, i + 1)) {
    if (i < n - 1 && bytes[i + 1] !== 0x0a) return true;
    if (i - last < DENSE) return loneCrWords(bytes, i + 1);
    last = i;
  }
  return false;
}

/** CRs closer than this take the word-at-a-time loop. */
const DENSE = 128;

/** {@link loneCr} from `from` on, a word at a time (CR is the last byte only when the caller said). */
function loneCrWords(bytes: Uint8Array, from: number): boolean {
  const n = bytes.length;
  // The bytes before the first word boundary, then whole words, then the rest.
  const head = Math.min(n, from + ((4 - ((bytes.byteOffset + from) & 3)) & 3));
  if (loneCrIn(bytes, from, head)) return true;
  if (n - head < 4) return loneCrIn(bytes, head, n);
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset + head, (n - head) >> 2);
  const count = words.length;
  for (let k = 0; k < count; k++) {
    // Whether the word holds a CR (a zero byte once XORed with four CRs: the classic test).
    const x = words[k]! ^ 0x0d0d0d0d;
    if (((x - 0x01010101) & ~x & 0x80808080) !== 0 && loneCrIn(bytes, head + k * 4, head + k * 4 + 4)) return true;
  }
  return loneCrIn(bytes, head + count * 4, n);
}

/** Whether `bytes[from, to)` hold a CR not before LF (one that ends `bytes` does not count here). */
function loneCrIn(bytes: Uint8Array, from: number, to: number): boolean {
  const last = bytes.length - 1;
  for (let i = from; i < to; i++) if (bytes[i] === 0x0d && i < last && bytes[i + 1] !== 0x0a) return true;
  return false;
}

/**
 * CSI finals: A B E F d s move to another row (or save the cursor); D G ` Z back along the line; H f
 * u both; a control inside the sequence (run by the terminal, which goes on with it) may be either.
 */
const FINAL_FLAGS = byteTable([
  ...Array.from({ length: 0x20 }, (_, c) => [c, MOVES_ROWS | GOES_BACK] as const),
  ...[..."ABEFds"].map((c) => [c.charCodeAt(0), MOVES_ROWS] as const),
  ...[..."DG`Z"].map((c) => [c.charCodeAt(0), GOES_BACK] as const),
  ...[..."Hfu"].map((c) => [c.charCodeAt(0), MOVES_ROWS | GOES_BACK] as const),
]);
/** ESC 7, D, E, M, c move to another row (or save the cursor); ESC 8 restores it: both. */
const ESC_FLAGS = byteTable([...[..."7DEMc"].map((c) => [c.charCodeAt(0), MOVES_ROWS] as const), [0x38, MOVES_ROWS | GOES_BACK]]);
