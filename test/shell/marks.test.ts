/**
 * The mark parser on byte fixtures: every mark found with its exact byte range, whatever the chunk
 * boundaries (split at every position, and byte by byte), nothing found where none is, and bounded.
 */
import { describe, expect, test } from "bun:test";
import { MarkParser, unescapeMarkValue, type Mark } from "../../src/shell/marks.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

/** Builds a stream from parts, remembering where each expected mark lies. */
function stream(parts: ReadonlyArray<string | { mark: string; expect: Omit<Mark, "start" | "end"> }>) {
  let text = "";
  const marks: Mark[] = [];
  for (const part of parts) {
    if (typeof part === "string") {
      text += part;
      continue;
    }
    const start = bytes(text).length;
    text += part.mark;
    marks.push({ ...part.expect, start, end: bytes(text).length });
  }
  return { data: bytes(text), marks };
}

const SESSION = stream([
  "\x1b[?2004h",
  { mark: "\x1b]633;P;Cwd=/home/ann/caf\\xc3\\xa9\x07", expect: { code: 633, kind: "P", params: ["Cwd=/home/ann/caf\\xc3\\xa9"] } },
  { mark: "\x1b]133;A\x07", expect: { code: 133, kind: "A", params: [] } },
  "\x1b[1;32mann@box\x1b[0m:\x1b[34m~\x1b[0m$ ",
  { mark: "\x1b]133;B\x1b\\", expect: { code: 133, kind: "B", params: [] } },
  "ls --color\r\n\x1b]0;ls --color\x07", // a window title: an OSC that is no mark
  {
    mark: "\x1b]633;E;ls --color\\x3b echo é;nonce-1\x07",
    expect: { code: 633, kind: "E", params: ["ls --color\\x3b echo é", "nonce-1"] },
  },
  { mark: "\x1b]133;C;aid=42\x07", expect: { code: 133, kind: "C", params: ["aid=42"] } },
  "\x1b[01;34mdir\x1b[0m  \x1b]8;;file:///x\x1b\\link\x1b]8;;\x1b\\  plain\r\n",
  "\x1b]133;A\x1b[0m", // aborted by an ESC that is not ST: no mark
  "\x1b]633;A\x18", // aborted by CAN
  "\x1b]1337;CurrentDir=/x\x07\x1b]7;file://box/x\x07", // other integrations' OSCs
  { mark: "\x1b]133;D;130\x07", expect: { code: 133, kind: "D", params: ["130"] } },
  { mark: "\x1b]633;D\x1b\\", expect: { code: 633, kind: "D", params: [] } },
  "\x1b]133\x07\x1b]133;\x07", // no kind: no mark
  { mark: "\x1b]133;A;k=s;aid=42\x07", expect: { code: 133, kind: "A", params: ["k=s", "aid=42"] } },
  "\x1b", // a trailing ESC
]);

function parseInChunks(data: Uint8Array, cuts: readonly number[], options?: ConstructorParameters<typeof MarkParser>[0]): Mark[] {
  const parser = new MarkParser(options);
  const found: Mark[] = [];
  let from = 0;
  for (const cut of [...cuts, data.length]) {
    found.push(...parser.push(data.subarray(from, cut)));
    from = cut;
  }
  expect(parser.offset).toBe((options?.startOffset ?? 0) + data.length);
  return found;
}

describe("MarkParser", () => {
  test("finds each OSC 133 and 633 mark with the offsets of its first and last byte", () => {
    const found = parseInChunks(SESSION.data, []);
    expect(found).toEqual(SESSION.marks);
    for (const mark of found) {
      expect(SESSION.data[mark.start]).toBe(0x1b);
      expect([0x07, 0x5c]).toContain(SESSION.data[mark.end - 1]!);
    }
  });

  test("finds the same marks with the stream split at every position", () => {
    for (let cut = 0; cut <= SESSION.data.length; cut++) {
      expect({ cut, found: parseInChunks(SESSION.data, [cut]) }).toEqual({ cut, found: SESSION.marks });
    }
  });

  test("finds the same marks fed one byte at a time, and split at every pair of positions of a mark", () => {
    const oneByOne = Array.from({ length: SESSION.data.length }, (_, i) => i);
    expect(parseInChunks(SESSION.data, oneByOne)).toEqual(SESSION.marks);
    const { data, marks } = stream(["x", { mark: "\x1b]633;E;a b\x1b\\", expect: { code: 633, kind: "E", params: ["a b"] } }, "y"]);
    for (let a = 0; a <= data.length; a++) {
      for (let b = a; b <= data.length; b++) expect(parseInChunks(data, [a, b])).toEqual(marks);
    }
  });

  test("offsets count from startOffset", () => {
    const found = parseInChunks(SESSION.data, [10], { startOffset: 1000 });
    expect(found.map((m) => m.start)).toEqual(SESSION.marks.map((m) => m.start + 1000));
  });

  test("an OSC left open longer than maxMarkBytes is abandoned, and scanning goes on after it", () => {
    const long = `\x1b]633;E;${"x".repeat(200)}\x07`;
    const { data, marks } = stream([long, { mark: "\x1b]133;C\x07", expect: { code: 133, kind: "C", params: [] } }]);
    expect(parseInChunks(data, [], { maxMarkBytes: 64 })).toEqual(marks);
    expect(parseInChunks(data, [50, 120], { maxMarkBytes: 64 })).toEqual(marks);
    expect(parseInChunks(data, [], { maxMarkBytes: 1024 })).toHaveLength(2);
  });

  test("megabytes of one unterminated OSC are dropped: no mark from them, and the next mark is found", () => {
    const parser = new MarkParser({ maxMarkBytes: 4096 });
    const filler = bytes("y".repeat(1 << 16));
    expect(parser.push(bytes("\x1b]133;E;"))).toEqual([]);
    for (let i = 0; i < 64; i++) expect(parser.push(filler)).toEqual([]);
    expect(parser.push(bytes("\x07"))).toEqual([]); // its terminator, long after it was dropped
    expect(parser.push(bytes("\x1b]133;D;0\x07")).map((m) => m.kind)).toEqual(["D"]);
  });

  test("a chunk without marks gives the shared empty answer and changes nothing", () => {
    const parser = new MarkParser();
    const plain = bytes("\x1b[31mred\x1b[0m plain\n");
    const copy = plain.slice();
    const first = parser.push(plain);
    expect(first).toEqual([]);
    expect(parser.push(plain)).toBe(first);
    expect(plain).toEqual(copy);
  });
});

describe("unescapeMarkValue", () => {
  test("reads VS Code's escapes: doubled backslashes and \\xHH bytes, read as UTF-8", () => {
    expect(unescapeMarkValue("a\\x3bb")).toBe("a;b");
    expect(unescapeMarkValue("C:\\\\Users")).toBe("C:\\Users");
    expect(unescapeMarkValue("for i in 1 2; do\\x0aecho $i; done")).toBe("for i in 1 2; do\necho $i; done");
    expect(unescapeMarkValue("caf\\xc3\\xa9 and é")).toBe("café and é");
    expect(unescapeMarkValue("\\X3B")).toBe(";");
  });

  test("leaves what is no escape as it is", () => {
    expect(unescapeMarkValue("plain")).toBe("plain");
    expect(unescapeMarkValue("\\xz1 \\n \\")).toBe("\\xz1 \\n \\");
  });
});
