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
  while (j < n) {
    const b = bytes[j]!;
    if (b < 0x20 || b > 0x3f) break;
    j++;
  }
  return j;
}

/** Whether the byte at a CSI's final index (csiFinal) is a control run inside it: the quick checks take it for a move and an edit. */
export const controlInside = (bytes: Uint8Array, j: number): boolean => j < bytes.length && bytes[j]! < 0x20;
