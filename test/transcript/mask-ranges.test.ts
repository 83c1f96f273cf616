/**
 * A mask map's ranges held encoded (src/transcript/mask-ranges.ts) answer as a plain list of ranges
 * does: ranges added in order (joined when they touch), cut back where a map is extended from, read
 * back for any span, encoded as mask-map.bin holds them and read again from those bytes. Checked
 * against the plain list over seeded random maps of thousands of ranges (many checkpoints), with
 * gaps and lengths of one to three LEB128 bytes.
 */
import { expect, test } from "bun:test";
import { decodeMaskMap, encodeMaskMap } from "../../src/transcript/mask-map-file.ts";
import { MaskRanges } from "../../src/transcript/mask-ranges.ts";
import { seededRandom } from "../helpers/seeded-random.ts";

type Range = [number, number];

/** The plain list's answer: the ranges that overlap `[from, to)`. */
const overlapping = (list: readonly Range[], from: number, to: number): Range[] => list.filter(([s, e]) => s < to && e > from);

const read = (ranges: MaskRanges, from: number, to: number): Range[] => {
  const out: Range[] = [];
  ranges.forEach(from, to, (s, e) => out.push([s, e]));
  return out;
};

test("added, cut, read and read again from their bytes: as a plain list of ranges", () => {
  const rand = seededRandom(3838);
  const size = () => [1, 100, 20_000][Math.floor(rand() * 3)]! * (1 + Math.floor(rand() * 4));
  for (let round = 0; round < 20; round++) {
    const ranges = new MaskRanges();
    const list: Range[] = [];
    let at = Math.floor(rand() * 50);
    for (let k = 0; k < 3000; k++) {
      // Sometimes touching the range before (joined to it; after a cut too), else after a gap.
      const start = rand() < 0.3 ? at : at + size();
      const end = start + size();
      ranges.add(start, end);
      const last = list.at(-1);
      if (last && last[1] >= start) last[1] = Math.max(last[1], end);
      else list.push([start, end]);
      at = end;
      if (rand() < 0.01) {
        // Cut back, as a map extended from 4 KiB before what it covered is.
        // Now and then just where a range ended: the next one found there joins it.
        const from = rand() < 0.3 && list.length > 1 ? list.at(-2)![1] : Math.max(0, at - Math.floor(rand() * 200_000));
        ranges.cut(from);
        while (list.length > 0 && list.at(-1)![0] >= from) list.pop();
        if (list.length > 0 && list.at(-1)![1] > from) list.at(-1)![1] = from;
        at = from;
      }
    }
    expect(ranges.count).toBe(list.length);
    const end = at + 10;
    const again = new MaskRanges(ranges.encoded().bytes, ranges.encoded().count);
    for (let q = 0; q < 200; q++) {
      const from = Math.floor(rand() * end);
      const to = from + Math.floor(rand() * 300_000);
      const expected = overlapping(list, from, to);
      expect(read(ranges, from, to)).toEqual(expected);
      expect(read(again, from, to)).toEqual(expected);
    }
    const all = read(ranges, 0, end);
    expect(all).toEqual(list);
    // As the file must hold them: apart (a gap of one byte or more after the first), not empty.
    expect(all.every(([s, e], i) => e > s && (i === 0 || s > all[i - 1]![1]))).toBe(true);
    expect(again.count).toBe(all.length);
  }
});

test("at the edges: offsets near 2^53, a window at a checkpoint's exact offset, a cut back to nothing", () => {
  const big = 2 ** 53 - 100;
  const ranges = new MaskRanges();
  ranges.add(0, 1);
  ranges.add(big, big + 10);
  ranges.add(big + 20, big + 30);
  const { bytes, count } = ranges.encoded();
  expect(read(new MaskRanges(bytes, count), 0, 2 ** 53)).toEqual([
    [0, 1],
    [big, big + 10],
    [big + 20, big + 30],
  ]);
  const key = new Uint8Array(32);
  expect(decodeMaskMap(encodeMaskMap({ ranges: bytes, count, covered: big + 40, full: false }, key), key, big + 40, 1 << 20)?.count).toBe(
    3,
  );
  // 3 checkpoints and one range past them: every window of 7 bytes, from each offset.
  const many = new MaskRanges();
  for (let k = 0; k <= 64 * 3; k++) many.add(k * 10, k * 10 + 5);
  many.add(10_000, 10_001);
  for (let from = 0; from < 2000; from++) {
    const expected: Range[] = [];
    for (let k = 0; k <= 64 * 3; k++) if (k * 10 + 5 > from && k * 10 < from + 7) expected.push([k * 10, k * 10 + 5]);
    expect(read(many, from, from + 7)).toEqual(expected);
  }
  // Cut where checkpoint 1 begins, a range added touching the one before, a cut inside a range, to 0.
  many.cut(640);
  expect(many.count).toBe(64);
  many.add(635, 641);
  expect(read(many, 620, 1e9)).toEqual([
    [620, 625],
    [630, 641],
  ]);
  many.cut(633);
  many.add(633, 634);
  expect(read(many, 620, 1e9)).toEqual([
    [620, 625],
    [630, 634],
  ]);
  many.cut(0);
  expect(many.count).toBe(0);
  many.add(3, 4);
  expect(read(many, 0, 9)).toEqual([[3, 4]]);
});

test("a map not full (its encoded ranges within the cap) is read back from its file, its open last range too", () => {
  // A map is full when its encoded ranges pass the cap; its file holds its last, open range as
  // well. That file was refused when read (past the cap by that range) and the map made again on
  // every run.
  const ranges = new MaskRanges();
  let k = 0;
  for (; ranges.size < 1000; k++) ranges.add(k * 300, k * 300 + 200);
  const cap = ranges.size;
  const { bytes, count } = ranges.encoded();
  expect(bytes.length).toBeGreaterThan(cap);
  const key = new Uint8Array(32);
  const file = encodeMaskMap({ ranges: bytes, count, covered: k * 300, full: false }, key);
  expect(decodeMaskMap(file, key, k * 300, cap)?.count).toBe(k);
});
