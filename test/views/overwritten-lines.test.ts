/**
 * overwrittenLines (src/views/overwritten-lines.ts): the lines whose earlier text may survive in part
 * once written over, which the text readers mask as raw bytes before drawing. Redraws that erase what
 * they wrote over, CR LF ends and a spinner's `ESC[2K\r` are left to the quick path; a shorter line
 * after `\r`, backspaces and moves back are not.
 */
import { describe, expect, test } from "bun:test";
import { overwrittenLines, overwrittenScan } from "../../src/views/overwritten-lines.ts";
import { seededRandom } from "../helpers/seeded-random.ts";

const lines = (text: string) => overwrittenLines(new TextEncoder().encode(text));
const TOKEN = "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";

describe("overwrittenLines", () => {
  test("nothing written over: plain lines, CR LF ends, colours, an erase to the end, a title", () => {
    expect(lines("one\ntwo\n")).toEqual([]);
    expect(lines("one\r\n\x1b[31mtwo\x1b[0m\r\n")).toEqual([]);
    expect(lines("\x1b]0;title\x07text\x1b[K\n")).toEqual([]);
  });

  test("redraws that erase what they wrote over: a progress bar (\\r ... ESC[K), a spinner (ESC[2K \\r)", () => {
    expect(lines("[=>  ] 10%\r[==> ] 50%\x1b[K\r[====] done\x1b[0K\n")).toEqual([]);
    expect(lines("\x1b[2K\r| working\x1b[2K\r/ working\x1b[2K\rdone\n")).toEqual([]);
  });

  test("a redraw after \\r shorter than the row, then an erase: the row read it over the old text first", () => {
    // 16 spaces and 24 letters, then `ghp_` and 12 over the spaces: the token for a moment, then the erase.
    const line = `${" ".repeat(16)}${TOKEN.slice(16)} done\r\x1b[1m${TOKEN.slice(0, 16)}\x1b[0K ok\n`;
    expect(lines(`ok\n${line}`)).toEqual([[3, 3 + line.length]]);
    // Nothing old is left on the line (only a replay sees the moment): apart from the lines that show a rest.
    const scan = overwrittenScan(new TextEncoder().encode(`ok\n${line}${TOKEN}\rx\n`));
    expect([scan.lines, scan.erased]).toEqual([[[3 + line.length, 3 + line.length + TOKEN.length + 3]], [[3, 3 + line.length]]]);
    // A progress line's last redraw shorter: replayed from the `\r` of the redraw before it, which covered the row.
    const bar = "\r[##  ] 12.5 MiB/s\x1b[K\r[### ] 12.6 MiB/s\x1b[K\r[####] 12 MiB/s\x1b[K, done.\n";
    const progress = overwrittenScan(new TextEncoder().encode(`ok\n${bar}`));
    expect([progress.lines, progress.erased]).toEqual([[], [[3 + bar.indexOf("\r[###"), 3 + bar.length]]]);
    // A shorter redraw earlier, covered by a longer one since: shown nowhere, the replay begins as before.
    const early = `\r[#   ] 9.5 MiB/s\x1b[K\r[#   ] 9 MiB/s\x1b[K${bar}`;
    const scan2 = overwrittenScan(new TextEncoder().encode(early));
    expect([scan2.lines, scan2.erased]).toEqual([[], [[early.indexOf("\r[###"), early.length]]]);
    const done = "[=====] 100%\rdone\x1b[K\n";
    expect(lines(done)).toEqual([[0, done.length]]);
    // A later erase on the same redraw does not undo it; a longer redraw after the next `\r` does.
    expect(lines("[=====] 100%\rdone\x1b[K ok\x1b[K\n")).toEqual([[0, 27]]);
    expect(lines("[=====] 100%\rdone\x1b[K\r[=====] 100%\x1b[K\n")).toEqual([]);
  });

  test("a redraw's length is counted in the grid's cells: UTF-8, DEL and C1 controls cannot stretch a shorter one", () => {
    // 40 blanks and 24 letters, then 24 cells of stretch and `ghp_` and 12 over the blanks: shorter
    // than the row in cells, however many bytes the stretch has. Each is erased (replayed), not covered.
    const old = `${" ".repeat(40)}${TOKEN.slice(16)} done\r`;
    for (const stretch of [
      "€".repeat(24),
      "é".repeat(24),
      "\u{1F600}".repeat(12),
      `${"x".repeat(24)}${"\x7f".repeat(40)}`,
      `${"x".repeat(24)}${"\u0085".repeat(30)}`,
    ]) {
      const line = `${old}${stretch}${TOKEN.slice(0, 16)}\x1b[K\n`;
      const scan = overwrittenScan(new TextEncoder().encode(line));
      expect({ stretch, lines: scan.lines, erased: scan.erased }).toEqual({
        stretch,
        lines: [],
        erased: [[0, new TextEncoder().encode(line).length]],
      });
    }
    // As long as the row in cells: covered, whatever its bytes (a Unicode progress bar redrawn in place).
    const bar = `[${"█".repeat(20)}] 50%\r[${"█".repeat(20)}] 60%\x1b[K\n`;
    expect(overwrittenScan(new TextEncoder().encode(bar))).toEqual({ lines: [], erased: [], rows: false });
    // A bad part is one cell (U+FFFD), as the grid draws it: E0 80 is two of them (41 cells), not one character (21).
    const bad = (redraw: number) => Uint8Array.from(`${"\xe0\x80".repeat(20)}x\r${"y".repeat(redraw)}\x1b[K\n`, (c) => c.charCodeAt(0));
    expect(overwrittenScan(bad(40)).erased).toEqual([[0, bad(40).length]]);
    expect(overwrittenScan(bad(41))).toEqual({ lines: [], erased: [], rows: false });
  });

  test("a move along the line counts in the row's reach: ESC[18C or ESC[19G, then 4 letters reach column 22", () => {
    // `ghp_` and 14 after `\r` is 18 cells: shorter than the row, which read the token for a moment.
    for (const move of ["\x1b[18C", "\x1b[19G", "\x1b[19`", "\x1b[18a"]) {
      const line = `${move}Zw3N done\rghp_Qx7Rt2Lm9Kp4Hs\x1b[K\n`;
      expect({ move, scan: overwrittenScan(new TextEncoder().encode(line)).erased }).toEqual({ move, scan: [[0, line.length]] });
    }
  });

  test("a token written over by a shorter line after \\r: its line, and only it", () => {
    const before = "ok\n";
    const line = `${TOKEN}\rdone, all ok: \n`;
    expect(lines(before + line + "after\n")).toEqual([[before.length, before.length + line.length]]);
  });

  test("backspaces and moves back over drawn text; a move or \\r before anything was drawn is not", () => {
    expect(lines(`${TOKEN}\b\b\bxyz\n`)).toEqual([[0, TOKEN.length + 7]]);
    expect(lines(`${TOKEN}\x1b[20Ddone\n`)).toEqual([[0, TOKEN.length + 10]]);
    expect(lines(`${TOKEN}\x1b[1Gdone\n`)).toEqual([[0, TOKEN.length + 9]]);
    // CBT, back to a tab stop: the screen then erases the token's tail and shows its head.
    expect(lines(`${TOKEN}\x1b[3Z\x1b[K\n`)).toEqual([[0, TOKEN.length + 8]]);
    expect(lines("\x1b[Htop - 12:00\x1b[K\r\n")).toEqual([]);
    expect(lines("\rfirst\n")).toEqual([]);
  });

  test("an erase to the end does not undo a move back; consecutive lines are one range; a cut line counts", () => {
    expect(lines(`${TOKEN}\b\b\x1b[K\n`)).toEqual([[0, TOKEN.length + 6]]);
    const a = `${TOKEN}\rx\n`;
    expect(lines(a + a)).toEqual([[0, 2 * a.length]]);
    expect(lines(`${TOKEN}\rx`)).toEqual([[0, TOKEN.length + 2]]);
  });

  test("moves forward past old text after \\r (CSI C, CSI a, TAB) keep the line, an erase after them notwithstanding", () => {
    for (const forward of ["\x1b[28C", "\x1b[28a", "\t\t\t"]) {
      const line = `${TOKEN} ok\rXX: ${forward}\x1b[K\n`;
      expect(lines(line)).toEqual([[0, line.length]]);
    }
  });

  test("a control inside a CSI (run by the terminal, which goes on with the sequence) keeps the line", () => {
    const line = `${TOKEN}\x1b[5;\r10Hdone\n`;
    expect(lines(line)).toEqual([[0, line.length]]);
  });

  test("an escape inside a title ends it and is run: a move back and an erase there keep the line", () => {
    const line = `start ${TOKEN}\x1b]0;x\x1b[24D\x1b[K\x07\n`;
    expect(lines(line)).toEqual([[0, line.length]]);
    expect(lines(`start ${TOKEN}\x1b]0;x\x1b\\ done\n`)).toEqual([]);
  });

  test("a control or an ESC right after an ESC is run, not taken for the sequence's byte", () => {
    expect(lines(`${TOKEN}\x1b\x1b[20Ddone\n`)).toEqual([[0, TOKEN.length + 11]]);
    expect(lines(`${TOKEN}\x1b\rdone\n`)).toEqual([[0, TOKEN.length + 7]]);
    expect(lines(`${TOKEN}\x1b(Bdone\n`)).toEqual([]);
  });

  test("the same lines as the byte-by-byte pass it was, over random transcripts at every alignment", () => {
    const parts = ["text ", "a longer run of text between the controls, passed over a word at a time ", "é", "\n", "\r\n", "\r"];
    parts.push(
      "\b",
      "\t",
      "\x1b[K",
      "\x1b[2K",
      "\x1b[0K",
      "\x1b[H",
      "\x1b[3D",
      "\x1b[5C",
      "\x1b8",
      "\x1b]0;t\x07",
      "\x1b[1\r",
      "\x7f",
      "€",
      "\u0085",
      "\u{1F600}",
    );
    const random = seededRandom(37);
    let found = 0;
    for (let k = 0; k < 4000; k++) {
      let s = "";
      for (let i = 1 + Math.floor(random() * 14); i > 0; i--) s += parts[Math.floor(random() * parts.length)]!;
      const bytes = new TextEncoder().encode(s);
      const expected = reference(bytes);
      found += expected.length > 0 ? 1 : 0;
      for (const shift of [0, 1, 2, 3]) {
        const buffer = new Uint8Array(bytes.length + 4);
        buffer.set(bytes, shift);
        expect([k, shift, overwrittenLines(buffer.subarray(shift, shift + bytes.length))]).toEqual([k, shift, expected]);
      }
    }
    expect(found).toBeGreaterThan(1000);
  });
});

/** The pass as it was (commit 57bb598): every byte looked at in turn. */
function reference(bytes: Uint8Array): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  // Output with none of these bytes (a pipe's plain lines) is told by native searches alone.
  if (bytes.indexOf(CR) < 0 && bytes.indexOf(BS) < 0 && bytes.indexOf(ESC) < 0) return ranges;
  const n = bytes.length;
  let start = 0;
  let drawn = false;
  /** 0: nothing written over; 1: written over after a `\r` (an erase to the end undoes it); 2: by a move back; 3: see the pass. */
  let over = 0;
  /** The column since the last `\r` and how far the row's text reaches, in cells. */
  let col = 0;
  let row = 0;
  const endLine = (end: number) => {
    if (over !== 0) {
      const last = ranges[ranges.length - 1];
      if (last && last[1] === start) last[1] = end;
      else ranges.push([start, end]);
    }
    [start, drawn, over, col, row] = [end, false, 0, 0, 0];
  };
  for (let i = 0; i < n; i++) {
    const b = bytes[i]!;
    if (b >= 0x20) {
      // The run of text to the next control, in the grid's cells: a UTF-16 unit of its decoding each, DEL and C1 none.
      let j = i;
      while (j < n && bytes[j]! >= 0x20) j++;
      for (const unit of new TextDecoder().decode(bytes.subarray(i, j))) col += unit.length * (unit < "\x7f" || unit > "\x9f" ? 1 : 0);
      if (bytes.subarray(i, j).some((c) => c !== 0x7f)) drawn = true;
      i = j - 1;
    } else if (b === LF) endLine(i + 1);
    else if (b === CR) {
      if (bytes[i + 1] !== LF && drawn && (over === 0 || over === 3)) over = 1;
      [col, row] = [0, Math.max(row, col)];
    } else if (b === BS) {
      if (drawn) over = 2;
      col = Math.max(0, col - 1);
    } else if (b === TAB) {
      if (over === 1 || over === 3) over = 2; // past old text without drawing: an erase after it leaves that text
      col = (col | 7) + 1;
    } else if (b === ESC) i = escape(bytes, i);
  }
  if (start < n) endLine(n);
  return ranges;

  /** Past the sequence at `i` (its last byte), its effect on the line's state applied. */
  function escape(bytes: Uint8Array, i: number): number {
    const next = bytes[i + 1];
    if (next === 0x5b) {
      let j = i + 2;
      const params = j;
      while (j < n && bytes[j]! >= 0x20 && bytes[j]! <= 0x3f) j++;
      const final = bytes[j];
      // A control inside the sequence is run by the terminal, which goes on with the sequence: its
      // end is not known here, so the line is taken as written over, and the control is looked at.
      if (final !== undefined && final < 0x20) {
        if (drawn) over = 2;
        return j - 1;
      }
      if (final === 0x4b) {
        const p = bytes.subarray(params, j);
        if (p.length === 1 && p[0] === 0x32)
          [drawn, over, row] = [false, 0, 0]; // ESC[2K: the whole line erased
        else if (p.length === 0 || (p.length === 1 && p[0] === 0x30)) {
          // A redraw after `\r` that erases what it did not cover: undone unless it was shorter than
          // the row (3: the row read it over the old text for a moment, until the next `\r`).
          if (over === 1) over = col >= row ? 0 : 3;
          row = col;
        }
      } else if (BACK_FINAL_SET.has(final ?? 0) && drawn) over = 2;
      else if ((final === 0x43 || final === 0x61) && (over === 1 || over === 3)) over = 2; // CUF, HPR: past old text, as a TAB
      // The column a move along the line leaves the cursor at (a move to another row keeps it).
      const count = Math.max(1, Number.parseInt(new TextDecoder().decode(bytes.subarray(params, j)), 10) || 0);
      if (final === 0x43 || final === 0x61) col += count;
      else if (final === 0x44) col = Math.max(0, col - count);
      else if (final === 0x47 || final === 0x60) col = count - 1;
      else if (final === 0x5a) col = Math.max(0, ((col - 1) & ~7) - 8 * (count - 1));
      return j;
    }
    if (next === 0x38) {
      if (drawn) over = 2; // ESC 8: the saved cursor restored
      return i + 1;
    }
    if (next === 0x5d || next === 0x50 || next === 0x5f || next === 0x5e || next === 0x58) {
      // A string (a title, a shell's mark): drawn nowhere, up to BEL or ESC (ST, or a sequence run as such).
      let j = i + 2;
      while (j < n && bytes[j] !== BEL && bytes[j] !== ESC) j++;
      if (j < n && bytes[j] === ESC && bytes[j + 1] !== 0x5c) return j - 1;
      return bytes[j] === BEL ? j : j + 1;
    }
    return i + 1;
  }
}

/** CSI finals that move the cursor back along a line, or anywhere: D, G, H, f, `, u. */
const BACK_FINAL_SET = new Set([0x44, 0x47, 0x48, 0x66, 0x60, 0x75, 0x5a]);

const [LF, CR, BS, ESC, BEL, TAB] = [0x0a, 0x0d, 0x08, 0x1b, 0x07, 0x09];
