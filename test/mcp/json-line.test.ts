/**
 * src/mcp/json-line.ts writes the bytes of `JSON.stringify(message) + "\n"`, a JoinedText as its
 * joined string: seeded values of every JSON kind (strings with quotes, controls, lone and split
 * surrogates, long ones met twice; undefined, functions and symbols in objects and arrays; dates,
 * toJSON, non-finite numbers, boxed values), and read answers' texts cut into pieces anywhere.
 */
import { expect, test } from "bun:test";
import { JoinedText, jsonLine } from "../../src/mcp/json-line.ts";
import { seededRandom } from "../helpers/seeded-random.ts";

const random = seededRandom(37);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const CHARS = [
  "a",
  "Z",
  " ",
  '"',
  "\\",
  "\n",
  "\r",
  "\t",
  "\u0000",
  "\u001f",
  "\u007f",
  "é",
  "漢",
  "😀",
  "\ud800",
  "\udc00",
  "\u2028",
  "/",
];
const text = (n: number): string => Array.from({ length: n }, () => pick(CHARS)).join("");

function value(depth: number): unknown {
  const kind = Math.floor(random() * (depth > 3 ? 6 : 10));
  switch (kind) {
    case 0:
      return text(Math.floor(random() * 20));
    case 1:
      return pick([0, -1, 1.5, 1e21, Number.NaN, Number.POSITIVE_INFINITY, -0]);
    case 2:
      return pick([true, false, null]);
    case 3:
      return pick([undefined, () => 1, Symbol("s")]);
    case 4:
      return pick([new Date(0), { toJSON: () => "T" }, new String("boxed"), new Number(3)]);
    case 5:
      return text(1024 + Math.floor(random() * 3000));
    case 6:
    case 7:
      return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
    default: {
      const object: Record<string, unknown> = {};
      for (let i = Math.floor(random() * 5); i > 0; i--) object[text(3)] = value(depth + 1);
      return object;
    }
  }
}

test("seeded values: the bytes of JSON.stringify and a newline", () => {
  for (let i = 0; i < 2000; i++) {
    const v = { result: value(0), jsonrpc: "2.0", id: i };
    expect(jsonLine(v).equals(Buffer.from(`${JSON.stringify(v)}\n`))).toBe(true);
  }
});

test("a long string met twice, and texts given in pieces cut anywhere (a surrogate pair too)", () => {
  for (let i = 0; i < 500; i++) {
    const whole = text(2000 + Math.floor(random() * 2000));
    const cuts = Array.from({ length: Math.floor(random() * 6) }, () => Math.floor(random() * whole.length)).sort((a, b) => a - b);
    const parts = [0, ...cuts].map((from, k) => whole.slice(from, [...cuts, whole.length][k]));
    const message = { result: { content: [{ type: "text", text: new JoinedText(parts) }], structuredContent: { data: whole } }, id: i };
    const expected = { result: { content: [{ type: "text", text: whole }], structuredContent: { data: whole } }, id: i };
    expect(jsonLine(message).equals(Buffer.from(`${JSON.stringify(expected)}\n`))).toBe(true);
  }
});

test("a toJSON is called as JSON.stringify calls it: with its member's key, on an array too", () => {
  const keyed = { toJSON: (key: string) => `key ${key}` };
  const list = Object.assign([1, 2], { toJSON: () => "a list" });
  const v = { result: { at: keyed, list, items: [keyed, { inner: keyed }] }, jsonrpc: "2.0", id: 1 };
  expect(jsonLine(v).toString()).toBe(`${JSON.stringify(v)}\n`);
});

test("a long string with nothing to escape, or with one thing only (a quote, a control, a lone surrogate), met once or twice", () => {
  const plain = ["a", "Z", "0", "+", "/", "=", " ", "é", "漢", "😀", "\u007f", "\u2028"];
  const one = ['"', "\\", "\n", "\u0000", "\u001f", "\ud800", "\udc00"];
  for (let i = 0; i < 400; i++) {
    const chars = Array.from({ length: 1024 + Math.floor(random() * 3000) }, () => pick(plain));
    // Half of them with one character to escape somewhere (first, last, anywhere).
    if (i % 2 === 1) chars[pick([0, chars.length - 1, Math.floor(random() * chars.length)])] = pick(one);
    const s = chars.join("");
    const v = { result: { content: [{ type: "text", text: s }], structuredContent: { data: s, other: `${s}x` } }, jsonrpc: "2.0", id: i };
    expect(jsonLine(v).equals(Buffer.from(`${JSON.stringify(v)}\n`))).toBe(true);
  }
});
