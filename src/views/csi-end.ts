/**
 * Where a CSI's parameter and intermediate bytes end: the one scan every quick check of escape
 * sequences shares (./may-assemble.ts, ./overwritten-lines.ts, transcript/moves-across-records.ts).
 */

/**
 * The index of the first byte from `from` (just past `ESC [`, or C1 CSI) that is not a parameter
 * or intermediate byte (0x20-0x3f): the sequence's final, or `bytes.length` when they end first.
 * It may be a control (below 0x20): a terminal runs it and goes on with the sequence, so where the
 * sequence ends and what it does is not known to a quick check (see {@link controlInside}).
 */
export function csiFinal(bytes: Uint8Array, from: number): number {
  const n = bytes.length;
  let j = from;
  while (j < n && PARAM[bytes[j]!] === 1) j++;
  return j;
}

/** 1 at the parameter and intermediate bytes (a table: one load a byte, no compares). */
const PARAM = new Uint8Array(256).fill(1, 0x20, 0x40);

/** Whether the byte at a CSI's final index (csiFinal) is a control run inside it: the quick checks take it for a move and an edit. */
export const controlInside = (bytes: Uint8Array, j: number): boolean => j < bytes.length && bytes[j]! < 0x20;
