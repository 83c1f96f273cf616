/**
 * The literal shortcut's SIMD loop (views/simd-scan.ts) plans every piece exactly as the
 * JavaScript loop does: the same lines counted, the same handed to the view. Random pieces full of
 * what the loop must stop at or pass (LF, CR before LF and not, TAB, ESC codes, DEL, C1 controls
 * and the other characters UTF-8 starts with 0xC2), at every alignment in the scanner's memory.
 */
import { expect, test } from "bun:test";
import { planPiece } from "../../src/views/literal-scan.ts";
import { returnScanBuffer, scanBuffer, simdSkip } from "../../src/views/simd-scan.ts";

/** A small deterministic generator (xorshift32): the same pieces at every run. */
const random = (seed: number) => () => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 2 ** 32;
};

const PARTS = [
  "plain text of a line ",
  "ERROR",
  "ERR",
  "OR",
  "\n",
  "\r\n",
  "\r",
  "\t",
  "\x1b[1m",
  "\x1b[K",
  "\x1b]0;t\x07",
  "\x7f",
  "\b",
  "\u0085",
  "\u009b",
  "\u00a0",
  "°",
  "é",
  "x",
  "0123456789abcdef",
];

test("the SIMD loop and the JavaScript loop plan every piece alike", () => {
  const next = random(25);
  const memory = scanBuffer(1 << 16);
  try {
    // The scanner is there (Bun has WebAssembly SIMD): the pieces below do take its loop.
    expect(simdSkip(memory, 0, 32)).toBeDefined();
    const encoder = new TextEncoder();
    for (let trial = 0; trial < 3000; trial++) {
      let text = "";
      const parts = 1 + Math.floor(next() * 60);
      for (let k = 0; k < parts; k++) {
        const part = PARTS[Math.floor(next() * PARTS.length)]!;
        text += next() < 0.5 ? part : part.repeat(1 + Math.floor(next() * 8));
      }
      const bytes = encoder.encode(text);
      const at = Math.floor(next() * 64);
      memory.set(bytes, at);
      const inMemory = memory.subarray(at, at + bytes.length);
      const plain = bytes.slice();
      const needle = encoder.encode(next() < 0.7 ? "ERROR" : "line");
      const context = Math.floor(next() * 3);
      expect(planPiece(inMemory, needle, context)).toEqual(planPiece(plain, needle, context));
    }
  } finally {
    returnScanBuffer(memory);
  }
});
