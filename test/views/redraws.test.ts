/**
 * redraws (src/views/may-assemble.ts), the one quick check the text readers' passes share, held to
 * plain references over random transcripts: MOVES_ROWS is mayMoveRows as it was (every ESC looked
 * at), GOES_BACK is true whenever the written-over lines' pass (overwrittenLines) finds a line, and
 * the check over records cut anywhere (redrawsAny) says at least what the check over their bytes
 * joined says. The shortcuts (a word at a time for CRs, escapes found natively when far apart) must
 * not change an answer.
 */
import { describe, expect, test } from "bun:test";
import { redrawsAny } from "../../src/transcript/moves-across-records.ts";
import { GOES_BACK, MOVES_ROWS, redraws } from "../../src/views/may-assemble.ts";
import { joinRanges, overwrittenLines, overwrittenScan, wholeLines } from "../../src/views/overwritten-lines.ts";
import { seededRandom } from "../helpers/seeded-random.ts";

const FRAGMENTS = [
  "text ",
  "a much longer run of plain text that takes the native search for the next escape ",
  "é日",
  "\n",
  "\r\n",
  "\r",
  "\b",
  "\t",
  "\x1b[31m",
  "\x1b[0m",
  "\x1b[38;5;208m",
  "\x1b[K",
  "\x1b[2K",
  "\x1b[0K",
  "\x1b[5;10H",
  "\x1b[H",
  "\x1b[3A",
  "\x1b[2B",
  "\x1b[E",
  "\x1b[F",
  "\x1b[4d",
  "\x1b[7f",
  "\x1b[s",
  "\x1b[u",
  "\x1b[12G",
  "\x1b[3D",
  "\x1b[5C",
  "\x1b[2`",
  "\x1b[3a",
  "\x1b[P",
  "\x1b[@",
  "\x1b7",
  "\x1b8",
  "\x1bD",
  "\x1bE",
  "\x1bM",
  "\x1bc",
  "\x1b(B",
  "\x1b]0;title\x07",
  "\x1b]0;ti\rtle\x1b\\",
  "\x1b[5;\r24H",
  "\x1b[31\bm",
  "\x1b[1\n",
  "\xc2\x9b5A",
  "\xd0\x9b",
  "\x1b",
  "\x1b[",
  "\x1b[12",
];

/** A random transcript of `count` fragments, as bytes (each character of a fragment one byte). */
function transcript(random: () => number, count: number): Uint8Array {
  let s = "";
  for (let i = 0; i < count; i++) s += FRAGMENTS[Math.floor(random() * FRAGMENTS.length)]!;
  return new Uint8Array([...s].map((c) => c.charCodeAt(0) & 0xff));
}

/** mayMoveRows as it was before the shared check: every ESC looked at in turn. */
function movesRowsReference(bytes: Uint8Array): boolean {
  const n = bytes.length;
  for (let i = 0; i < n; i++) {
    if (bytes[i] === 0x9b && bytes[i - 1] === 0xc2) return true;
    if (bytes[i] !== 0x1b) continue;
    if (bytes[i + 1] !== 0x5b) {
      if ("78DEMc".includes(String.fromCharCode(bytes[i + 1] ?? 0))) return true;
      continue;
    }
    let j = i + 2;
    while (j < n && bytes[j]! >= 0x20 && bytes[j]! <= 0x3f) j++;
    if (j < n && (bytes[j]! < 0x20 || "ABEFHfdsu".includes(String.fromCharCode(bytes[j]!)))) return true;
    i = j;
  }
  return false;
}

describe("redraws", () => {
  test("MOVES_ROWS is the reference's answer; GOES_BACK whenever a line is written over", () => {
    const random = seededRandom(38);
    let rows = 0;
    let back = 0;
    let lines = 0;
    for (let k = 0; k < 6000; k++) {
      const bytes = transcript(random, 1 + Math.floor(random() * 12));
      const flags = redraws(bytes);
      expect([k, (flags & MOVES_ROWS) !== 0]).toEqual([k, movesRowsReference(bytes)]);
      expect([k, redraws(bytes, MOVES_ROWS)]).toEqual([k, flags & MOVES_ROWS]);
      expect([k, redraws(bytes, GOES_BACK)]).toEqual([k, flags & GOES_BACK]);
      // Stopped once something goes back (the text readers' check): that answer the same, nothing more than the whole.
      const early = redraws(bytes, MOVES_ROWS | GOES_BACK, true, GOES_BACK);
      expect([k, early & GOES_BACK, early & ~flags]).toEqual([k, flags & GOES_BACK, 0]);
      const written = overwrittenLines(bytes).length > 0;
      if (written) expect([k, flags & GOES_BACK]).toEqual([k, GOES_BACK]);
      // The written-over lines' pass tells moves too (the text readers' pass asks it alone once something goes back).
      const scan = overwrittenScan(bytes);
      // Its lines and those a shorter redraw erased (replayed only) are overwrittenLines.
      expect([k, joinRanges(scan.lines, wholeLines(bytes, scan.erased))]).toEqual([k, overwrittenLines(bytes)]);
      // An erased line's replay begins at its start or at a `\r` of it.
      for (const [a] of scan.erased) expect([k, a === 0 || bytes[a] === 0x0d || bytes[a - 1] === 0x0a]).toEqual([k, true]);
      if (flags & MOVES_ROWS) expect([k, scan.rows]).toEqual([k, true]);
      rows += flags & MOVES_ROWS ? 1 : 0;
      back += flags & GOES_BACK ? 1 : 0;
      lines += written ? 1 : 0;
    }
    // The transcripts reach every answer.
    expect(Math.min(rows, back, lines, 6000 - rows, 6000 - back)).toBeGreaterThan(200);
  });

  test("long CR LF and colour runs: a lone CR, a BS or a move anywhere in them is found, wherever it falls in a word", () => {
    const line = new TextEncoder().encode("\x1b[32m  CC \x1b[0m src/module_1.o\r\n".repeat(300));
    const plain = new TextEncoder().encode("  CC       src/modules/module_12.o\r\n".repeat(300));
    for (const base of [line, plain]) {
      expect(redraws(base)).toBe(0);
      // Just after a line's LF near each place (inside a sequence an insert would be a control in it).
      for (const near of [0, 1, 2, 3, 5, 1000, 4001, base.length - 2]) {
        const at = near === 0 ? 0 : base.indexOf(0x0a, near - 1) + 1;
        for (const [insert, flags] of [
          ["\r", GOES_BACK],
          ["\b", GOES_BACK],
          ["\x1b[2A", MOVES_ROWS],
          ["\x1b[4D", GOES_BACK],
          ["\x1b8", MOVES_ROWS | GOES_BACK],
        ] as const) {
          const bytes = new Uint8Array(base.length + insert.length + 3);
          // At every alignment of the buffer: the word loop reads from the first word boundary.
          for (const shift of [0, 1, 2, 3]) {
            bytes.set(base.subarray(0, at), shift);
            bytes.set(new TextEncoder().encode(insert), shift + at);
            bytes.set(base.subarray(at), shift + at + insert.length);
            const view = bytes.subarray(shift, shift + base.length + insert.length);
            expect([at, shift, insert, redraws(view)]).toEqual([at, shift, insert, flags]);
          }
        }
      }
    }
  });

  test("records cut anywhere say at least what their bytes joined say", () => {
    const random = seededRandom(7);
    for (let k = 0; k < 3000; k++) {
      const bytes = transcript(random, 1 + Math.floor(random() * 30));
      // Views of one buffer (checked as one run), copies (each on its own, sequences cut between
      // them looked at across), and a mix.
      for (const copy of [0, 1, 0.5]) {
        const records: Array<{ channel: "pty"; bytes: Uint8Array }> = [];
        for (let at = 0; at < bytes.length; ) {
          const size = 1 + Math.floor(random() * 12);
          const part = bytes.subarray(at, at + size);
          records.push({ channel: "pty", bytes: random() < copy ? part.slice() : part });
          at += size;
        }
        const whole = redraws(bytes, MOVES_ROWS | GOES_BACK, false);
        const cut = redrawsAny(records);
        expect([k, copy, whole & ~cut]).toEqual([k, copy, 0]);
      }
    }
  });
});
