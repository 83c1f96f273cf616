/**
 * overwrittenLines (src/views/overwritten-lines.ts): the lines whose earlier text may survive in part
 * once written over, which the text readers mask as raw bytes before drawing. Redraws that erase what
 * they wrote over, CR LF ends and a spinner's `ESC[2K\r` are left to the quick path; a shorter line
 * after `\r`, backspaces and moves back are not.
 */
import { describe, expect, test } from "bun:test";
import { overwrittenLines } from "../../src/views/overwritten-lines.ts";

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

  test("a token written over by a shorter line after \\r: its line, and only it", () => {
    const before = "ok\n";
    const line = `${TOKEN}\rdone, all ok: \n`;
    expect(lines(before + line + "after\n")).toEqual([[before.length, before.length + line.length]]);
  });

  test("backspaces and moves back over drawn text; a move or \\r before anything was drawn is not", () => {
    expect(lines(`${TOKEN}\b\b\bxyz\n`)).toEqual([[0, TOKEN.length + 7]]);
    expect(lines(`${TOKEN}\x1b[20Ddone\n`)).toEqual([[0, TOKEN.length + 10]]);
    expect(lines(`${TOKEN}\x1b[1Gdone\n`)).toEqual([[0, TOKEN.length + 9]]);
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
});
