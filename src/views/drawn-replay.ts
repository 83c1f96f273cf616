/**
 * The replay of ./drawn-by.ts: decoded units run through the controls' parser onto the grid, runs of
 * printable ASCII written at once.
 */
import { Seq, type Controls } from "./_controls.ts";
import type { Grid } from "./drawn-grid.ts";

const LF = 0x0a;

/** The units of `text` (drawn by the bytes `from`/`to` give, each its own byte when absent) onto the grid. */
export function replay(
  grid: Grid,
  controls: Controls,
  units: { text: string; from?: Int32Array; to?: Int32Array },
  slow: boolean,
  /** In an ASCII window (unit i is byte i): where the run of printable bytes from a unit ends. */
  runEnd?: (from: number) => number,
): void {
  const { text, from, to } = units;
  const n = text.length;
  for (let i = 0; i < n; ) {
    if (controls.seq !== Seq.Ground) {
      i = controls.sequence(text, i, n);
      continue;
    }
    const c = text.charCodeAt(i);
    if (c >= 0x20 && c < 0x7f && !slow) {
      // A run of printable ASCII: one byte a cell, the bytes in order, written at once.
      let j = i + 1;
      if (runEnd) j = runEnd(j);
      else for (let d = c; j < n; j++) if ((d = text.charCodeAt(j)) < 0x20 || d >= 0x7f) break;
      grid.putRun(i, j, from ? from[i]! : i);
      i = j;
      continue;
    }
    if (c >= 0x20 ? c < 0x7f || c > 0x9f : false) grid.put(c, from ? from[i]! : i, to ? to[i]! : i + 1);
    else if (c === 0x09) grid.tab();
    else if (c === LF) grid.lineFeed(true);
    else controls.control(c);
    i++;
  }
}

/**
 * For ASCII `bytes`: the index of the first byte from `i` on that is not printable (below 0x20, or
 * DEL), or `bytes.length`, found a word (4 bytes) at a time: a full-screen program's rows are runs
 * of dozens of bytes, and a unit at a time was a sixth of the replay.
 */
export function printableEnds(bytes: Uint8Array): (i: number) => number {
  const n = bytes.length;
  const head = (4 - (bytes.byteOffset & 3)) & 3;
  const words = n >= head + 4 ? new Uint32Array(bytes.buffer, bytes.byteOffset + head, (n - head) >> 2) : new Uint32Array(0);
  const count = words.length;
  const printable = (b: number): boolean => b >= 0x20 && b !== 0x7f;
  return (i) => {
    for (; i < n && (i < head || ((i - head) & 3) !== 0); i++) if (!printable(bytes[i]!)) return i;
    let k = (i - head) >> 2;
    for (; k < count; k++) {
      const x = words[k]!;
      const del = x ^ 0x7f7f7f7f;
      // A byte below 0x20, or one equal to 0x7f (a zero once XORed), in the word (exact for ASCII).
      if ((((x - 0x20202020) & ~x) | ((del - 0x01010101) & ~del)) & 0x80808080) break;
    }
    for (i = Math.max(i, head + k * 4); i < n; i++) if (!printable(bytes[i]!)) return i;
    return n;
  };
}
