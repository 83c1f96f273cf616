/**
 * One JSON-RPC message as the bytes of its line: exactly what `JSON.stringify(message) + "\n"`
 * gives, built for answers that carry a window of output. JSON.stringify copies a string with
 * nothing to escape at memory speed, but one holding a single newline goes character by character
 * (about 0.05 ms for a 64 KiB read's base64 answer: its text content is a header line, then the
 * base64), and a read's answer carries its data twice (the text content and structuredContent).
 * Here a text given as {@link JoinedText} is escaped piece by piece, so the big piece takes the fast
 * copy, and a long string met twice is escaped once.
 */

import type { LineBuffers } from "./line-buffers.ts";

/** A string given as the pieces it joins: serialized as `parts.join("")` would be. */
export class JoinedText {
  constructor(readonly parts: readonly string[]) {}

  toString(): string {
    return this.parts.join("");
  }
}

/** Strings at least this long are escaped once per line, however often they occur in it. */
const LONG = 1024;

const QUOTE = 0x22;

const isSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdfff;

/**
 * A long string's JSON without its quotes, written in the line with or without them. Its bytes are
 * encoded once: a second time they are copied from where they went first (a read's text data, in
 * UTF-16 as JavaScript holds it, costs more to encode than to copy).
 */
interface Long {
  readonly inside: string;
  readonly quoted: boolean;
}

/**
 * What JSON.stringify escapes in a string (a quote, a backslash, a control character, a lone
 * surrogate; paired ones are matched too, and escaped as JSON.stringify does). A string without any
 * is its own JSON inside the quotes: a page's base64 (87 KB, 1.4 MB for 1 MiB) is then not copied
 * once more, and the test costs half of that copy.
 */
const ESCAPED = /["\\\x00-\x1f\ud800-\udfff]/;

/** `value` serialized; `out` collects the pieces of the line. */
class LineWriter {
  readonly out: (string | Long)[] = [];
  readonly #escaped = new Map<string, string>();

  string(s: string, quoted = true): void {
    if (s.length < LONG) {
      const json = JSON.stringify(s);
      this.out.push(quoted ? json : json.slice(1, -1));
      return;
    }
    let inside = this.#escaped.get(s);
    if (inside === undefined) this.#escaped.set(s, (inside = ESCAPED.test(s) ? JSON.stringify(s).slice(1, -1) : s));
    this.out.push({ inside, quoted });
  }

  joined(text: JoinedText): void {
    const { parts } = text;
    // A surrogate pair cut between two pieces would be escaped as two lone halves: joined first then.
    for (const part of parts)
      if (part.length > 0 && (isSurrogate(part.charCodeAt(0)) || isSurrogate(part.charCodeAt(part.length - 1))))
        return this.string(text.toString());
    this.out.push('"');
    // Each piece without its quotes: the pieces are one string.
    for (const part of parts) if (part.length > 0) this.string(part, false);
    this.out.push('"');
  }

  /**
   * Whether `value` was written (JSON.stringify leaves out undefined, functions and symbols in an
   * object). `key` is its member's name or index, which JSON.stringify passes to a toJSON.
   */
  value(value: unknown, key = ""): boolean {
    // A toJSON first, as JSON.stringify calls it (an array's or a bigint's too), with the key.
    if ((typeof value === "object" && value !== null) || typeof value === "bigint") {
      const toJSON = (value as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === "function") value = toJSON.call(value, key);
    }
    switch (typeof value) {
      case "string":
        this.string(value);
        return true;
      case "undefined":
      case "function":
      case "symbol":
        return false;
      case "object":
        if (value === null) break;
        if (value instanceof JoinedText) {
          this.joined(value);
          return true;
        }
        if (Array.isArray(value) && Object.getPrototypeOf(value) === Array.prototype) {
          this.array(value);
          return true;
        }
        if (isPlainObject(value)) {
          this.object(value);
          return true;
        }
        break;
    }
    // Numbers, booleans, null, and anything of a class of its own: JSON.stringify's own way.
    const text = JSON.stringify(value);
    if (text === undefined) return false;
    this.out.push(text);
    return true;
  }

  array(values: readonly unknown[]): void {
    this.out.push("[");
    for (let i = 0; i < values.length; i++) {
      if (i > 0) this.out.push(",");
      if (!this.value(values[i], String(i))) this.out.push("null");
    }
    this.out.push("]");
  }

  object(object: Record<string, unknown>): void {
    this.out.push("{");
    let first = true;
    for (const key of Object.keys(object)) {
      const mark = this.out.length;
      this.out.push(first ? "" : ",", JSON.stringify(key), ":");
      if (this.value(object[key], key)) first = false;
      else this.out.length = mark;
    }
    this.out.push("}");
  }
}

/** A plain object (its toJSON, if any, was called already). */
function isPlainObject(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * `message` as the UTF-8 bytes of `JSON.stringify(message)` and a newline ({@link JoinedText} as
 * its joined string). Each piece is written into the one buffer: joining them into a string first
 * cost more than the rest of the line.
 */
export function jsonLine(message: unknown, buffers?: LineBuffers): Buffer {
  const writer = new LineWriter();
  if (!writer.value(message)) throw new TypeError("a JSON-RPC message must be a JSON value");
  const { out } = writer;
  out.push("\n");
  /** Each long string's bytes inside its quotes, and where they went first. */
  const longs = new Map<string, { readonly bytes: number; at: number }>();
  let size = 0;
  for (const piece of out) {
    if (typeof piece === "string") size += Buffer.byteLength(piece, "utf8");
    else {
      let long = longs.get(piece.inside);
      if (long === undefined) longs.set(piece.inside, (long = { bytes: Buffer.byteLength(piece.inside, "utf8"), at: -1 }));
      size += piece.quoted ? long.bytes + 2 : long.bytes;
    }
  }
  // Every byte of it is written below (a buffer used again holds an older line's).
  const line = buffers ? buffers.take(size) : Buffer.allocUnsafe(size);
  let at = 0;
  for (const piece of out) {
    if (typeof piece === "string") {
      at += line.write(piece, at, "utf8");
      continue;
    }
    const long = longs.get(piece.inside)!;
    if (piece.quoted) line[at++] = QUOTE;
    if (long.at >= 0) line.copyWithin(at, long.at, long.at + long.bytes);
    else {
      // Encoded once; the next time copied.
      line.write(piece.inside, at, "utf8");
      long.at = at;
    }
    at += long.bytes;
    if (piece.quoted) line[at++] = QUOTE;
  }
  return line;
}
