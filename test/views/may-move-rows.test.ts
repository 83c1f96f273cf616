/**
 * mayMoveRows (src/views/may-assemble.ts): the check that keeps the text readers' assembled pass
 * off a window. True for every way to another row and back the grid models, false for what the
 * text view puts together within a line itself.
 */
import { describe, expect, test } from "bun:test";
import { mayAssemble, mayMoveRows } from "../../src/views/may-assemble.ts";

const bytes = (s: string) => new Uint8Array([...s].map((c) => c.charCodeAt(0)));

describe("mayMoveRows", () => {
  const rows = ["\x1b[5;24H", "\x1b[H", "\x1b[3A", "\x1b[B", "\x1b[2E", "\x1b[F", "\x1b[7f", "\x1b[4d", "\x1b[s", "\x1b[u"];
  const escs = ["\x1b7", "\x1b8", "\x1bD", "\x1bE", "\x1bM", "\x1bc", "\xc2\x9b5A"];
  test.each([...rows, ...escs])("%j moves to another row (or may)", (seq) => {
    expect(mayMoveRows(bytes(`text ${seq} more`))).toBe(true);
    expect(mayAssemble(bytes(`text ${seq} more`))).toBe(true);
  });

  const inLine = ["\r", "\b", "\x1b[K", "\x1b[2K\r", "\x1b[5C", "\x1b[3D", "\x1b[12G", "\x1b[P", "\x1b[@", "\x1b[4X", "\x1b[J"];
  test.each(inLine)("%j stays on the line: the text view puts it together", (seq) => {
    expect(mayMoveRows(bytes(`text ${seq} more`))).toBe(false);
    expect(mayAssemble(bytes(`text ${seq} more`))).toBe(true);
  });

  test("colours, titles and plain text do not move rows", () => {
    for (const s of ["plain\n", "\x1b[31mred\x1b[0m\r\n", "\x1b]0;title\x07x", "\x1b[38;5;208mx", "é ü — 日本\n"])
      expect([s, mayMoveRows(new TextEncoder().encode(s))]).toEqual([s, false]);
  });

  test("a control inside a CSI: the terminal runs it and goes on with the sequence, so it may move", () => {
    for (const s of ["\x1b[5;\r24Hx", "\x1b[31\bmx"]) {
      expect([s, mayMoveRows(bytes(s))]).toEqual([s, true]);
      expect([s, mayAssemble(bytes(s))]).toEqual([s, true]);
    }
  });
});
