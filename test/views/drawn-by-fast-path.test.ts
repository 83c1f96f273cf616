/**
 * The grid's fast way (ASCII decoded without maps, runs of printable ASCII written at once) shows
 * exactly the rows, texts and bytes the slow way shows character by character, over the bench's
 * outputs and random transcripts of every edit the grid knows, on screens of a few rows and of 24;
 * and bytes that mayAssemble lets skip the grid show no row.
 */
import { expect, test } from "bun:test";
import { assembledOutput } from "../../bench/assembled-mask.ts";
import { transcript } from "../../bench/lib/transcripts.ts";
import { drawnBy, mayAssemble } from "../../src/views/drawn-by.ts";
import { seededRandom } from "../helpers/seeded-random.ts";

const PARTS = [
  "abc",
  "ghp_",
  "TOKEN=",
  " ",
  "\t",
  "\n",
  "\r\n",
  "\r",
  "\b",
  "\x1b[K",
  "\x1b[1K",
  "\x1b[2K",
  "\x1b[J",
  "\x1b[1J",
  "\x1b[2J",
  "\x1b[31m",
  "\x1b[0m",
  "\x1b[H",
  "\x1b[2;5H",
  "\x1b[3d",
  "\x1b[A",
  "\x1b[2B",
  "\x1b[E",
  "\x1b[F",
  "\x1b[3D",
  "\x1b[4C",
  "\x1b[5G",
  "\x1b[7`",
  "\x1b[2X",
  "\x1b[2P",
  "\x1b[3@",
  "\x1b7",
  "\x1b8",
  "\x1b[s",
  "\x1b[u",
  "\x1bD",
  "\x1bE",
  "\x1bM",
  "\x1b]0;title\x07",
  "\x1b[",
  "\x1b",
  "\u009b2D",
  "é",
  "漢",
  "😀",
  "\xff",
  "x".repeat(50),
  "\x1b[20000C",
  "\x07",
];

interface Look {
  readonly text: string;
  readonly from: number[];
  readonly to: number[];
}

function looks(bytes: Uint8Array, rows: number, fresh: boolean, slow: boolean): Look[] {
  const out: Look[] = [];
  drawnBy(bytes, { rows, fresh, slow }, (text, from, to) => out.push({ text, from: [...from], to: [...to] }));
  return out;
}

/** Both ways show the same; and bytes that skip the grid (mayAssemble false) show nothing either way. */
function same(bytes: Uint8Array, rows: number, fresh: boolean): void {
  const slow = looks(bytes, rows, fresh, true);
  expect(looks(bytes, rows, fresh, false)).toEqual(slow);
  if (!mayAssemble(bytes)) expect(slow).toEqual([]);
}

test("the bench's outputs and the views' transcripts", () => {
  for (const kind of ["plain", "colour", "progress", "erase"] as const) same(assembledOutput(kind, 1 << 17), 24, false);
  for (const kind of ["build", "tui", "mixed"] as const) same(transcript(kind, 1 << 17), 24, false);
});

test("random transcripts of edits, on screens of 1 to 4 rows and of 24", () => {
  const rand = seededRandom(38);
  const encoder = new TextEncoder();
  for (let round = 0; round < 400; round++) {
    let text = "";
    const parts = 5 + Math.floor(rand() * 60);
    // Every other round draws only from the first parts (no cursor moves): mayAssemble says false often.
    const kinds = round % 2 === 0 ? PARTS.length : 8;
    for (let i = 0; i < parts; i++) text += PARTS[Math.floor(rand() * kinds)];
    // Latin-1 for a few rounds: bytes that are not UTF-8 (\xff, a lone C1).
    const bytes = round % 5 === 4 ? Buffer.from(text, "latin1") : encoder.encode(text);
    const rows = rand() < 0.5 ? 1 + Math.floor(rand() * 4) : 24;
    same(bytes, rows, rand() < 0.5);
  }
});

test("bytes that are not ASCII, decoded in pieces of 65,536 units: sequences, runs and pairs across the pieces' edges", () => {
  const encoder = new TextEncoder();
  const piece = 1 << 16;
  // Each starts so that what follows the "é"s (one unit each) straddles the first piece's edge.
  const across = ["\x1b[12;3H", "\x1b]0;title\x07", "😀", `${"x".repeat(40)}\r\x1b[5C`, "\b\b\x1b[2P", "\x1b[", "\u009b2D"];
  for (const [i, part] of across.entries())
    for (const lead of [piece - 3, piece - 2, piece - 1, piece]) {
      const text = `${"é".repeat(lead)}${part}ghp_abc\r\x1b[K${"漢".repeat(i + 1)}\n`;
      same(encoder.encode(text.repeat(2)), 24, true);
    }
  const rand = seededRandom(6);
  for (let round = 0; round < 6; round++) {
    let text = "";
    // About 300 KB, every part likely: several pieces, edges anywhere.
    while (text.length < 200_000) text += PARTS[Math.floor(rand() * PARTS.length)];
    const bytes = round % 3 === 2 ? Buffer.from(text, "latin1") : encoder.encode(text);
    same(bytes, round % 2 === 0 ? 24 : 3, round < 3);
  }
});

test("ASCII runs found a word at a time: a DEL or a control at every place in a word, the bytes at every alignment", () => {
  const encoder = new TextEncoder();
  for (const stop of ["\x7f", "\r", "\x1b[K", "\b", "\n", "\x1f"])
    for (let at = 0; at < 12; at++) {
      const line = `${"a".repeat(at)}ghp_${stop}xyz${"b".repeat(11 - at)}\r${"c".repeat(at + 2)}\x1b[2;${at + 1}H${"d".repeat(7)}\n`;
      const bytes = encoder.encode(`\x1b[H${line.repeat(3)}`);
      // A view at each offset of a larger buffer: the words begin on another byte of the text.
      for (let offset = 0; offset < 4; offset++) {
        const buffer = new Uint8Array(bytes.length + offset);
        buffer.set(bytes, offset);
        same(buffer.subarray(offset), 24, true);
      }
    }
});
