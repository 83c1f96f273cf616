/**
 * The quick check before the grid of ./drawn-by.ts: whether a window's bytes can draw anything out
 * of byte order at all. Most output cannot, and this is what keeps the assembled-secret pass off it.
 */

import { controlInside, csiFinal } from "./csi-end.ts";

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
 * moves back along the line or anywhere (D G H f ` u), a control inside a CSI, or a C1 CSI. A line
 * with none of these shows everything drawn on it (./overwritten-lines.ts finds no line). A CR that
 * ends `bytes` counts unless `openCr` is false (the caller looks at the byte after it).
 */
export function redraws(bytes: Uint8Array, want: number = MOVES_ROWS | GOES_BACK, openCr = true): number {
  let flags = 0;
  if ((want & GOES_BACK) !== 0 && (bytes.indexOf(0x08) >= 0 || loneCr(bytes, openCr))) flags = GOES_BACK;
  if (flags === want) return flags;
  if (c1Csi(bytes)) return want;
  const n = bytes.length;
  for (let i = bytes.indexOf(0x1b); i >= 0; ) {
    let j = i;
    if (bytes[i + 1] !== 0x5b) flags |= ESC_FLAGS[bytes[i + 1] ?? 0]!;
    else {
      j = csiFinal(bytes, i + 2);
      // As in mayAssemble: a control inside the sequence leaves its end unknown here (its flags are both).
      if (j < n) flags |= FINAL_FLAGS[bytes[j]!]!;
    }
    if ((flags & want) === want) return want;
    i = nextEsc(bytes, j + 1);
  }
  return flags & want;
}

/** Whether `bytes` hold a C1 CSI (C2 9B; 0x9B alone is a byte inside many UTF-8 characters). */
function c1Csi(bytes: Uint8Array): boolean {
  for (let i = bytes.indexOf(0x9b); i >= 0; i = bytes.indexOf(0x9b, i + 1)) if (bytes[i - 1] === 0xc2) return true;
  return false;
}

/**
 * Whether `bytes` hold a CR not before LF (one that ends them only when `openCr`). A word (4 bytes)
 * at a time: a build log's CR LF ends come every few dozen bytes, too close for a native search each.
 */
function loneCr(bytes: Uint8Array, openCr: boolean): boolean {
  const n = bytes.length;
  if (n > 0 && bytes[n - 1] === 0x0d && openCr) return true;
  // The bytes before the first word boundary, then whole words, then the rest.
  const head = Math.min(n, (4 - (bytes.byteOffset & 3)) & 3);
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset + head, (n - head) >> 2);
  if (loneCrIn(bytes, 0, head)) return true;
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

/** Bytes looked at one by one for the next ESC before a native search is asked (colours are dense, a progress line's are not). */
const NEAR = 16;

/** The next ESC from `from`, or -1. */
function nextEsc(bytes: Uint8Array, from: number): number {
  const near = Math.min(bytes.length, from + NEAR);
  for (let k = from; k < near; k++) if (bytes[k] === 0x1b) return k;
  return near < bytes.length ? bytes.indexOf(0x1b, near) : -1;
}

/**
 * CSI finals: A B E F d s move to another row (or save the cursor); D G ` back along the line; H f
 * u both; a control inside the sequence (run by the terminal, which goes on with it) may be either.
 */
const FINAL_FLAGS = byteTable([
  ...Array.from({ length: 0x20 }, (_, c) => [c, MOVES_ROWS | GOES_BACK] as const),
  ...[..."ABEFds"].map((c) => [c.charCodeAt(0), MOVES_ROWS] as const),
  ...[..."DG`"].map((c) => [c.charCodeAt(0), GOES_BACK] as const),
  ...[..."Hfu"].map((c) => [c.charCodeAt(0), MOVES_ROWS | GOES_BACK] as const),
]);
/** ESC 7, D, E, M, c move to another row (or save the cursor); ESC 8 restores it: both. */
const ESC_FLAGS = byteTable([...[..."7DEMc"].map((c) => [c.charCodeAt(0), MOVES_ROWS] as const), [0x38, MOVES_ROWS | GOES_BACK]]);
