/**
 * The runs a piece of a token is looked for in are found by looking at every PIECE-th byte and
 * measuring the run around it (src/transcript/pieces.ts, tokenRuns): exactly the runs the regular
 * expression it replaced (`[A-Za-z0-9+]{12,}` over the bytes as Latin-1) gave, in the same order,
 * over random bytes made of runs of every length about PIECE and what ends them; and a visit that
 * returns true stops there.
 */
import { expect, test } from "bun:test";
import { firstPiece, PIECE, tokenRuns } from "../../src/transcript/pieces.ts";
import { seededRandom } from "../helpers/seeded-random.ts";
import { firstPiece as firstPieceBefore } from "./_before-mcpread3/pieces.ts";

/** The code before: the runs of the regular expression. */
function runsBefore(bytes: Uint8Array): number[][] {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
  const run = new RegExp(`[A-Za-z0-9+]{${PIECE},}`, "g");
  const out: number[][] = [];
  for (let m = run.exec(text); m !== null; m = run.exec(text)) out.push([m.index, m.index + m[0].length]);
  return out;
}

test("tokenRuns: the regular expression's runs, in order, over random bytes", () => {
  const rand = seededRandom(38);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const word = (n: number) => Array.from({ length: n }, () => pick([..."aZ09bQx+yK7mN"])).join("");
  const parts = [" ", "\n", "/", "-", "_", "=", ".", "é", "\x1b[31m", "\x1b]0;", "\x07", "\x00", "\r", "\x9b", "\xff"];
  let withRuns = 0;
  for (let round = 0; round < 20000; round++) {
    let text = "";
    const count = 1 + Math.floor(rand() * 14);
    for (let i = 0; i < count; i++) text += rand() < 0.5 ? word(Math.floor(rand() * 3 * PIECE)) : pick(parts);
    // At some offset into a larger buffer, as the store's slices are.
    const inside = new Uint8Array(text.length + 7);
    inside.set(Buffer.from(text, "latin1"), 3);
    const bytes = inside.subarray(3, 3 + text.length);
    const got: number[][] = [];
    tokenRuns(bytes, (start, end) => {
      got.push([start, end]);
      return false;
    });
    const want = runsBefore(bytes);
    expect({ text, got }).toEqual({ text, got: want });
    if (want.length > 0) withRuns++;
    // Stopped by the visit: only the runs up to it.
    if (want.length > 1) {
      const upTo: number[][] = [];
      tokenRuns(bytes, (start, end) => upTo.push([start, end]) === 2);
      expect(upTo).toEqual(want.slice(0, 2));
    }
  }
  expect(withRuns).toBeGreaterThan(10000);
});

test("firstPiece: a random run is a piece, a path's segment, hex or a word of one case is not", () => {
  const at = (text: string) => firstPiece(Buffer.from(text, "latin1"), () => true);
  const token = "aB3dE5fG7hJ9kL";
  expect(at(`token ${token} end`)).toEqual({ start: 6, end: 6 + token.length });
  expect(at("cd /home/me/aB3dE5fG7hJ9kL")).toBeUndefined();
  expect(at("commit 0123456789abcdef01")).toBeUndefined();
  expect(at("ReferenceErrors here")).toBeUndefined();
  // Inside a window title: not drawn, not a piece; the same drawn after it is.
  const titled = `\x1b]0;${token}\x07 then ${token}2`;
  expect(at(titled)).toEqual({ start: titled.lastIndexOf(token), end: titled.length });
});

test("tokenRuns: every placement of two runs of 0 to 30 bytes in 64, at the stride's every edge", () => {
  // Exhaustive where the random test samples: each start and length about PIECE, 2 * PIECE and the
  // buffer's ends, the second run after gaps of 1 to PIECE + 1 bytes (what ends a run: a blank, `/`, `_`).
  const size = 64;
  let [cases, withRuns] = [0, 0];
  for (let first = 0; first < size; first++)
    for (let a = 0; a <= 30 && first + a <= size; a++)
      for (const gap of [1, 2, PIECE - 1, PIECE, PIECE + 1])
        for (const b of [0, 1, PIECE - 1, PIECE, PIECE + 1, 2 * PIECE - 1, 2 * PIECE, 2 * PIECE + 1]) {
          const second = first + a + gap;
          if (second + b > size) continue;
          const bytes = new Uint8Array(size).fill(0x20);
          for (let i = first; i < first + a; i++) bytes[i] = "aZ9+".charCodeAt(i % 4);
          bytes[first + a] = gap === 1 ? 0x2f : 0x5f;
          for (let i = second; i < second + b; i++) bytes[i] = "Q7x".charCodeAt(i % 3);
          const got: number[][] = [];
          tokenRuns(bytes, (start, end) => {
            got.push([start, end]);
            return false;
          });
          const want = runsBefore(bytes);
          if (JSON.stringify(got) !== JSON.stringify(want)) expect({ first, a, gap, b, got }).toEqual({ first, a, gap, b, got: want });
          cases++;
          if (want.length > 0) withRuns++;
        }
  expect(cases).toBeGreaterThan(5000);
  expect(withRuns).toBeGreaterThan(cases / 2);
});

test("firstPiece: the same piece as before mcpread3, over random bytes of strings, paths and runs, with runs refused", () => {
  const rand = seededRandom(4242);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const runs = ["aB3dE5fG7hJ9kL", "Zq8Wm2Xr4Tn6Ys", "abcdefghijklmn", "0123456789abcdef", "HWACWciBQd2G", "aB3dE5fG7hJ"];
  const parts = [" ", "/", "~/", "./", "-", ".", "_", "\n", "\x1b]0;", "\x1bP", "\x1bX", "\x1b^", "\x1b_", "\x07", "\x1b\\", "\x1b[31m"];
  let found = 0;
  for (let round = 0; round < 20000; round++) {
    let text = "";
    const count = 1 + Math.floor(rand() * 16);
    for (let i = 0; i < count; i++) text += rand() < 0.45 ? pick(runs) : pick(parts);
    const bytes = Buffer.from(text, "latin1");
    // A run refused by `ok` (one start in three), as a live read refuses old ones: the next is looked at.
    const ok = (start: number) => start % 3 !== 0;
    for (const loose of [false, true]) {
      const want = firstPieceBefore(bytes, ok, loose);
      expect({ text, loose, got: firstPiece(bytes, ok, loose) }).toEqual({ text, loose, got: want });
      if (want) found++;
    }
  }
  expect(found).toBeGreaterThan(10000);
});

test("firstPiece: a pass over a hostile 1 MiB window, not one a run (a string never ended, one long path)", () => {
  const MiB = 1 << 20;
  const fill = (head: string, unit: string) => Buffer.from(head + unit.repeat(Math.ceil(MiB / unit.length)), "latin1");
  // Each run is refused (inside the string, a segment of the path): every one is asked about.
  for (const bytes of [
    fill("\x1b]0;", "aB3dE5fG7hJ9kL "),
    fill("/", "aB3dE5fG7hJ9kL/"),
    fill("x\x1b]0;\x07/", "aB3dE5fG7hJ9kL\x1b_/"),
    fill("", "\x1bP"),
  ]) {
    const started = performance.now();
    expect(firstPiece(bytes, () => true)).toBeUndefined();
    // Linear: a few ms; one look back or forward a run was 100 s (the string) and 9 s (the path).
    expect(performance.now() - started).toBeLessThan(2000);
  }
});
