/**
 * The grid that knows which bytes drew each cell (src/views/drawn-by.ts): for each edit a terminal
 * makes, the rows it shows and, for each cell, the bytes behind it; plain rows are never shown.
 */
import { describe, expect, test } from "bun:test";
import { drawnBy, mayAssemble } from "../../src/views/drawn-by.ts";

interface Look {
  readonly text: string;
  /** For each cell, the input's characters that drew it ("" for a blank no byte drew). */
  readonly drew: string[];
}

/** The rows `input` shows, each with the bytes behind its cells read back as text. */
function looks(input: string, rows = 24, fresh = true): Look[] {
  const bytes = new TextEncoder().encode(input);
  const out: Look[] = [];
  drawnBy(bytes, { rows, fresh }, (text, from, to) => {
    const drew = from.map((f, i) => (f < 0 ? "" : new TextDecoder().decode(bytes.subarray(f, to[i]))));
    out.push({ text, drew });
  });
  return out;
}

const lastText = (input: string, rows?: number, fresh?: boolean) => looks(input, rows, fresh).at(-1)?.text;

describe("the rows a terminal edits", () => {
  test("plain rows, colours and CR LF are never shown (the raw masking sees them whole)", () => {
    expect(looks("plain\r\n\x1b[31mred\x1b[0m text\n\ttab\r\n")).toEqual([]);
  });

  test("nor a row redrawn whole, each cell by the byte after the last (a progress line)", () => {
    expect(looks("10% [=>  ]\r20% [==> ]\r30% [\x1b[32m===\x1b[0m>]\n")).toEqual([]);
    expect(looks("10% [=>  ] 1 kB\r20% [==> ]\n").map((l) => l.text)).toEqual(["20% [==> ] 1 kB"]);
  });

  test("CR and re-print: the row before the overwrite, then as it ends", () => {
    expect(looks("SECOND\rfirst\n").map((l) => l.text)).toEqual(["firstD"]);
    // Blanks skipped over hold nothing to show before they are written.
    expect(looks("token \x1b[6CSECOND\r\x1b[6Cfirst_\n").map((l) => l.text)).toEqual(["token first_SECOND"]);
    expect(looks("abcdef\rxy\rXY\n").map((l) => l.text)).toEqual(["xycdef", "XYcdef"]);
  });

  test("each cell is drawn by its own bytes", () => {
    const [look] = looks("ab\x1b[3Cxy\r\x1b[2CZZZ\n");
    expect(look!.text).toBe("abZZZxy");
    expect(look!.drew).toEqual(["a", "b", "Z", "Z", "Z", "x", "y"]);
  });

  test("backspaces, CUB, CUF, CHA and HPA", () => {
    expect(lastText("abcX\b\bYZ\n")).toBe("abYZ");
    expect(lastText("abcdef\x1b[3DXY\n")).toBe("abcXYf");
    expect(lastText("ab\x1b[2Ccd\n")).toBe("ab  cd");
    expect(lastText("abcdef\x1b[2GX\x1b[5`Y\n")).toBe("aXcdYf");
  });

  test("EL, ECH, DCH and ICH (readline's edits)", () => {
    expect(lastText("abc!!!\x1b[3D\x1b[Kdef\n")).toBe("abcdef");
    expect(lastText("abcdef\r\x1b[2X\n")).toBe("  cdef");
    expect(lastText("ab#cd\x1b[3D\x1b[P\n")).toBe("abcd");
    expect(lastText("abd\x1b[D\x1b[@c\n")).toBe("abcd");
    expect(lastText("abcdef\x1b[3D\x1b[1K\n")).toBe("    ef");
  });

  test("a deletion that joins two pieces shows the joined row", () => {
    const [look] = looks("ghp_ab#cd\x1b[3D\x1b[P\n");
    expect(look!.text).toBe("ghp_abcd");
    expect(look!.drew.join("")).toBe("ghp_abcd");
  });

  test("absolute positions: the second half first, on the same row", () => {
    const [look] = looks("\x1b[5;10HSECOND\x1b[5;4Hfirst_\x1b[7;1H");
    expect(look!.text).toBe("   first_SECOND");
    expect(look!.drew.slice(3).join("")).toBe("first_SECOND");
  });

  test("VPA, CUU, CUD, CNL, CPL move between rows", () => {
    expect(lastText("row1\nrow2\x1b[A\x1b[4GX\n")).toBe("rowX");
    expect(lastText("\x1b[3dab\x1b[B\x1b[A\x1b[2GX\n")).toBe("aX");
    expect(lastText("ab\x1b[Ecd\x1b[FX\n")).toBe("Xb");
  });

  test("a saved cursor (ESC 7, ESC 8, CSI s, CSI u) and RI", () => {
    expect(lastText("key \x1b7      SECOND\x1b8first_\n")).toBe("key first_SECOND");
    expect(lastText("key \x1b[s      SECOND\x1b[ufirst_\n")).toBe("key first_SECOND");
    expect(lastText("      SECOND\n\x1bMfirst_\n")).toBe("first_SECOND");
  });

  test("rows scroll off the top of a screen of the session's height", () => {
    // Three rows: after three LFs the first row has left, so the top row is the second written.
    expect(lastText("aa\nbbb\nc\nd\x1b[1;1HX\n", 3)).toBe("Xbb");
    expect(lastText("aa\nbbb\nc\x1b[1;1HX\n", 3)).toBe("Xa");
  });

  test("bytes from the middle of a session begin on the screen's last row", () => {
    expect(lastText("abc\x1b[3;2HX\n", 3, false)).toBe("aXc");
  });

  test("ED clears the screen: what was there is shown before it goes", () => {
    // Written on a cleared row in byte order: the raw masking sees it as the screen does.
    expect(looks("ab\x1b[5;1Hcd\x1b[2J\x1b[1;1Hxy\n").map((l) => l.text)).toEqual([]);
    expect(looks("abcd\x1b[2D12\x1b[2Jxy\n").map((l) => l.text)).toEqual(["ab12", "    xy"]);
  });

  test("UTF-8: a cell is drawn by all the bytes of its character", () => {
    const [look] = looks("é漢😀x\rY\n");
    expect(look!.text).toBe("Y漢😀x");
    expect(look!.drew).toEqual(["Y", "漢", "😀", "😀", "x"]);
  });

  test("malformed UTF-8 draws U+FFFD, one per bad part, from its own bytes", () => {
    const bytes = Uint8Array.from([0x61, 0xe2, 0x82, 0x62, 0xff, 0x0d, 0x5a, 0x0a]);
    const out: Array<[string, number[], number[]]> = [];
    drawnBy(bytes, { rows: 24, fresh: true }, (text, from, to) => out.push([text, [...from], [...to]]));
    expect(out).toEqual([["Z\ufffdb\ufffd", [6, 1, 3, 4], [7, 3, 4, 5]]]);
  });

  test("a cursor sent far right costs a bounded row", () => {
    const [look] = looks("a\x1b[999999C\bb\rc\n");
    expect(look!.text.length).toBe(1 << 14);
    expect(look!.text.endsWith(" b")).toBe(true);
  });
});

describe("mayAssemble: bytes that cannot draw out of order skip the grid", () => {
  test.each([
    ["plain\n", false],
    ["crlf\r\n", false],
    ["\x1b[31mcolour\x1b[0m\x1b[?25l\n", false],
    ["redraw\rx", true],
    ["back\bx", true],
    ["\x1b[3Dx", true],
    ["\x1b[K", true],
    ["\x1b[5;1H", true],
    ["\x1b7x\x1b8", true],
    ["\xc2\x9b3D", true],
  ])("%j: %p", (input, want) => {
    expect(mayAssemble(Buffer.from(input, "latin1"))).toBe(want);
  });
});
