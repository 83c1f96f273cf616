/**
 * A mask map's ranges held encoded (src/transcript/mask-ranges.ts) answer as a plain list of ranges
 * does: ranges added in order (joined when they touch), cut back where a map is extended from, read
 * back for any span, encoded as mask-map.bin holds them and read again from those bytes. Checked
 * against the plain list over seeded random maps of thousands of ranges (many checkpoints), with
 * gaps and lengths of one to three LEB128 bytes.
 */
import { expect, test } from "bun:test";
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
