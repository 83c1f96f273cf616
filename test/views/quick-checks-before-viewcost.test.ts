/**
 * The quick checks the viewcost branch made faster, held to the code as it was before (a test-only
 * copy of may-assemble.ts in ./_before-viewcost/, from 9a3fd40; redrawsAny to it over each channel's
 * bytes joined, as the passes replay them) over random byte strings made of what the checks
 * look at: CR, LF, BS, DEL, TAB, NUL, ESC and CSIs that move, erase or colour (a control inside
 * some), C1 CSI (C2 9B) and a lone 9B or C2, other bytes >= 0x80, printable runs, a token; each at
 * every alignment of a larger buffer. A check that finds less than before lets a window skip a
 * masking pass it needed: any such answer fails here.
 */
import { expect, test } from "bun:test";
import type { DerunOutputChannel } from "../../src/core/enums.ts";
import { redrawsAny } from "../../src/transcript/moves-across-records.ts";
import { printableEnds } from "../../src/views/drawn-replay.ts";
import { mayAssemble, redraws } from "../../src/views/may-assemble.ts";
import { overwrittenScan } from "../../src/views/overwritten-lines.ts";
import { seededRandom } from "../helpers/seeded-random.ts";
import * as before from "./_before-viewcost/may-assemble.ts";

/** CSI finals that move, erase or colour. */
const FINALS = ["D", "C", "K", "H", "G", "A", "m", "J", "f", "s", "u", "Z", "`", "d", "E", "2K", "0K", ";5H"];

const PIECES: ReadonlyArray<string | ((r: () => number) => string)> = [
  "\r",
  "\n",
  "\r\n",
  "\b",
  "\b\b\b",
  "\x7f",
  "\t",
  "\0",
  "\x1b",
  "\x9b",
  "\xc2\x9b",
  "\xc2",
  "\x85",
  "\xc3\xa9",
  (r) => `\x1b[${Math.floor(r() * 30)}${pick(r, FINALS)}`,
  (r) => `\x1b${pick(r, ["7", "8", "D", "E", "M", "c", "(B", "]0;t\x07", "[", "\\"])}`,
  (r) => `\x1b[${pick(r, ["", "1", "5;"])}${pick(r, ["\r", "\b", "\n", "\x1b"])}${pick(r, ["D", "H", "m"])}`,
  (r) => `\xc2\x9b${Math.floor(r() * 9)}${pick(r, ["D", "H", "m", "A"])}`,
  (r) => "abcdefghijklmnopqrstuvwxyz0123456789 ".slice(0, 1 + Math.floor(r() * 37)),
  "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
  (r) => String.fromCharCode(Math.floor(r() * 256)),
];

const pick = <T>(r: () => number, list: readonly T[]): T => list[Math.floor(r() * list.length)]!;

/** A random string of PIECES as bytes (latin1: one byte a character), at a random offset of a larger buffer. */
function bytesOf(r: () => number): Uint8Array {
  let s = "";
  for (let k = 1 + Math.floor(r() * 14); k > 0; k--) {
    const piece = pick(r, PIECES);
    s += typeof piece === "string" ? piece : piece(r);
  }
  const at = Math.floor(r() * 4);
  const buffer = new Uint8Array(s.length + at + 3);
  buffer.set(Buffer.from(s, "latin1"), at);
  return buffer.subarray(at, at + s.length);
}

const shown = (bytes: Uint8Array) => JSON.stringify(Buffer.from(bytes).toString("latin1"));

test("mayAssemble and redraws (stopped early or not) answer at least what they answered before", () => {
  const r = seededRandom(4242);
  for (let k = 0; k < 10_000; k++) {
    const bytes = bytesOf(r);
    expect([shown(bytes), mayAssemble(bytes)]).toEqual([shown(bytes), before.mayAssemble(bytes)]);
    for (const want of [1, 2, 3])
      for (const openCr of [true, false]) {
        const old = before.redraws(bytes, want, openCr);
        expect([shown(bytes), want, openCr, redraws(bytes, want, openCr)]).toEqual([shown(bytes), want, openCr, old]);
        for (const enough of want === 3 ? [1, 2] : []) {
          // Stopped once `enough` is found: those flags as before, none that was not there before.
          const early = redraws(bytes, want, openCr, enough);
          const expected = (early & enough) === enough ? [old & enough, 0] : [old, 0];
          const got = (early & enough) === enough ? [early & enough, early & ~old] : [early, early & ~old];
          expect([shown(bytes), want, openCr, enough, ...got]).toEqual([shown(bytes), want, openCr, enough, ...expected]);
        }
      }
  }
});

test("redrawsAny over records cut anywhere, of two channels, in one buffer or copied: at least each channel's bytes joined", () => {
  const r = seededRandom(4243);
  for (let k = 0; k < 4000; k++) {
    const bytes = bytesOf(r);
    for (const copy of [0, 1, 0.5]) {
      const list: Array<{ channel: DerunOutputChannel; bytes: Uint8Array }> = [];
      for (let at = 0; at < bytes.length; ) {
        const part = bytes.subarray(at, at + 1 + Math.floor(r() * 8));
        list.push({ channel: r() < 0.7 ? "stdout" : "stderr", bytes: r() < copy ? part.slice() : part });
        at += part.length;
      }
      for (const open of [true, false]) {
        // What the passes replay: each channel's bytes joined, its last CR lone when its line may go on.
        let joined = 0;
        for (const channel of ["stdout", "stderr"] as const) {
          const mine = list.filter((p) => p.channel === channel).map((p) => Buffer.from(p.bytes));
          if (mine.length > 0) joined |= before.redraws(Buffer.concat(mine), 3, open);
        }
        const all = redrawsAny(list, 3, () => open);
        const early = redrawsAny(list, 3, () => open, 2);
        const id = [shown(bytes), copy, open];
        expect([...id, joined & ~all]).toEqual([...id, 0]);
        expect([...id, (early & 2) !== 0 || (joined & ~early) === 0]).toEqual([...id, true]);
      }
    }
  }
});

test("the written-over lines' scan told the bytes go back finds what it finds when it looks itself", () => {
  const r = seededRandom(4244);
  for (let k = 0; k < 10_000; k++) {
    const bytes = bytesOf(r);
    const told = overwrittenScan(bytes, true);
    const itself = overwrittenScan(bytes, false);
    if (before.redraws(bytes, 2) !== 0) expect([shown(bytes), told]).toEqual([shown(bytes), itself]);
    else expect([shown(bytes), itself.rows && !told.rows, told.lines.length >= itself.lines.length]).toEqual([shown(bytes), false, true]);
  }
});

test("printableEnds (a word at a time) ends a run where a byte at a time does, from every index, at every alignment", () => {
  const r = seededRandom(4245);
  for (let k = 0; k < 4000; k++) {
    const bytes = bytesOf(r).map((b) => b & 0x7f);
    const ends = printableEnds(bytes);
    for (let i = 0; i <= bytes.length; i++) {
      let j = i;
      while (j < bytes.length && bytes[j]! >= 0x20 && bytes[j] !== 0x7f) j++;
      if (ends(i) !== j) expect([shown(bytes), bytes.byteOffset, i, ends(i)]).toEqual([shown(bytes), bytes.byteOffset, i, j]);
    }
  }
});
