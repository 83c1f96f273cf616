/**
 * One JSON-RPC message as the bytes of its line: exactly what `JSON.stringify(message) + "\n"`
 * gives, built for answers that carry a window of output. JSON.stringify copies a string with
 * nothing to escape at memory speed, but one holding a single newline goes character by character
 * (about 0.05 ms for a 64 KiB read's base64 answer: its text content is a header line, then the
 * base64), and a read's answer carries its data twice (the text content and structuredContent).
 * Here a text given as {@link JoinedText} is escaped piece by piece, so the big piece takes the fast
 * copy, and a long string met twice is escaped once.
 */

/** A string given as the pieces it joins: serialized as `parts.join("")` would be. */
export class JoinedText {
  constructor(readonly parts: readonly string[]) {}

  toString(): string {
    return this.parts.join("");
  }
}

/** Strings at least this long are escaped once per line, however often they occur in it. */
const LONG = 1024;

const isSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdfff;

/** `value` serialized; `out` collects the pieces of the line. */
class LineWriter {
  readonly out: string[] = [];
  readonly #escaped = new Map<string, string>();

  string(s: string): void {
    if (s.length < LONG) {
      this.out.push(JSON.stringify(s));
      return;
    }
    let escaped = this.#escaped.get(s);
    if (escaped === undefined) this.#escaped.set(s, (escaped = JSON.stringify(s)));
    this.out.push(escaped);
  }

  joined(text: JoinedText): void {
    const { parts } = text;
    // A surrogate pair cut between two pieces would be escaped as two lone halves: joined first then.
    for (const part of parts)
      if (part.length > 0 && (isSurrogate(part.charCodeAt(0)) || isSurrogate(part.charCodeAt(part.length - 1))))
        return this.string(text.toString());
    this.out.push('"');
    for (const part of parts) {
      if (part.length === 0) continue;
      this.string(part);
      // The piece's quotes off (a substring: no copy): the pieces are one string.
      const last = this.out.length - 1;
      this.out[last] = this.out[last]!.slice(1, -1);
    }
    this.out.push('"');
  }

  /** Whether `value` was written (JSON.stringify leaves out undefined, functions and symbols in an object). */
  value(value: unknown): boolean {
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
    // Numbers, booleans, null, and anything with a toJSON or a class of its own: JSON.stringify's own way.
    const text = JSON.stringify(value);
    if (text === undefined) return false;
    this.out.push(text);
    return true;
  }

  array(values: readonly unknown[]): void {
    this.out.push("[");
    for (let i = 0; i < values.length; i++) {
      if (i > 0) this.out.push(",");
      if (!this.value(values[i])) this.out.push("null");
    }
    this.out.push("]");
  }

  object(object: Record<string, unknown>): void {
    this.out.push("{");
    let first = true;
    for (const key of Object.keys(object)) {
      const mark = this.out.length;
      this.out.push(first ? "" : ",", JSON.stringify(key), ":");
      if (this.value(object[key])) first = false;
      else this.out.length = mark;
    }
    this.out.push("}");
  }
}

/** A plain object without a toJSON of its own (which JSON.stringify would call). */
function isPlainObject(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && typeof (value as { toJSON?: unknown }).toJSON !== "function";
}

/**
 * `message` as the UTF-8 bytes of `JSON.stringify(message)` and a newline ({@link JoinedText} as
 * its joined string). Each piece is written into the one buffer: joining them into a string first
 * cost more than the rest of the line.
 */
export function jsonLine(message: unknown): Buffer {
  const writer = new LineWriter();
  if (!writer.value(message)) throw new TypeError("a JSON-RPC message must be a JSON value");
  const { out } = writer;
  out.push("\n");
  let size = 0;
  for (const piece of out) size += Buffer.byteLength(piece, "utf8");
  const line = Buffer.allocUnsafe(size);
  let at = 0;
  for (const piece of out) at += line.write(piece, at, "utf8");
  return line;
}
