/**
 * A look at a JSON text's shape from its bytes, fed in pieces, in constant memory and without
 * parsing it: how many values it holds (about: one per `,` and per `[`/`{`, outside strings), and
 * the top-level `"id"` member of an object when it is a number or a short string. The line
 * transport uses it to refuse a line too long to read with that line's id, and a line of too many
 * values before JSON.parse and the schemas (a few MB of small keys cost them over 100x its size).
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN = new Set([0x7b, 0x5b]); // { [
const CLOSE = new Set([0x7d, 0x5d]); // } ]
const SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
/** Bytes an id value may span (JSON-escaped): a longer id is not read. */
const MAX_ID_BYTES = 256;
const decoder = new TextDecoder();

type Expecting = "key" | "colon" | "value" | "comma";

export class JsonShape {
  /** Values seen so far (about; see the module comment). */
  values = 1;
  #depth = 0;
  #inString = false;
  #escape = false;
  /** At depth 1: what comes next in the object. */
  #expecting: Expecting = "key";
  /** The bytes of the top-level key or id value being read, while they are read. */
  #captured: number[] | undefined;
  #capturing: "key" | "id-string" | "id-number" | undefined;
  #keyIsId = false;
  #id: string | number | undefined;
  /** The top level is not an object, or its id is not a number or short string: no id will be read. */
  #noId = false;

  /** The top-level id, once read. */
  get id(): string | number | undefined {
    return this.#id;
  }

  /** Whether reading on could still find an id. */
  get seeking(): boolean {
    return this.#id === undefined && !this.#noId;
  }

  /** The next backslash in the piece being fed, at or after an index: searched again only once passed. */
  #slash = { bytes: undefined as Uint8Array | undefined, at: -1 };

  feed(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length; i++) {
      if (this.#inString) i = this.#inStringAt(bytes, i);
      else this.#outside(bytes[i]!);
    }
  }

  /** The end of the text: a number id ends here if nothing came after it. */
  end(): void {
    if (this.#capturing === "id-number") this.#endNumber();
  }

  /** In a string at `i`: skips to its closing quote (or the chunk's end); returns the index handled last. */
  #inStringAt(bytes: Uint8Array, i: number): number {
    if (this.#captured === undefined) {
      // Not capturing: jump to the next quote or backslash, which are all that matter here.
      if (this.#escape) {
        this.#escape = false;
        return i;
      }
      const quote = bytes.indexOf(QUOTE, i);
      const slash = this.#nextSlash(bytes, i);
      const at = slash >= 0 && (quote < 0 || slash < quote) ? slash : quote;
      if (at < 0) return bytes.length;
      if (at === slash) this.#escape = true;
      else this.#inString = false;
      return at;
    }
    const b = bytes[i]!;
    if (this.#escape) this.#escape = false;
    else if (b === BACKSLASH) this.#escape = true;
    else if (b === QUOTE) {
      this.#inString = false;
      this.#endString();
      return i;
    }
    this.#capture(b);
    return i;
  }

  #nextSlash(bytes: Uint8Array, i: number): number {
    const seen = this.#slash;
    if (seen.bytes !== bytes || (seen.at >= 0 && seen.at < i)) {
      seen.bytes = bytes;
      seen.at = bytes.indexOf(BACKSLASH, i);
    }
    return seen.at;
  }

  #outside(b: number): void {
    if (this.#capturing === "id-number") {
      if ((b >= 0x30 && b <= 0x39) || b === 0x2d || b === 0x2b || b === 0x2e || b === 0x65 || b === 0x45) return this.#capture(b);
      this.#endNumber();
    }
    if (SPACE.has(b)) return;
    if (b === QUOTE) return this.#openString();
    if (OPEN.has(b)) {
      this.values += 1;
      if (this.#depth === 0 && b !== 0x7b) this.#noId = true;
      if (this.#depth === 1) this.#valueStarts("other");
      this.#depth += 1;
      return;
    }
    if (CLOSE.has(b)) {
      this.#depth -= 1;
      if (this.#depth === 0) this.#noId ||= this.#id === undefined; // the object ended without an id
      return;
    }
    if (this.#depth === 0) {
      this.#noId = true; // a scalar at the top
      return;
    }
    if (b === COMMA) this.values += 1;
    if (this.#depth !== 1) return;
    if (b === COMMA) this.#expecting = "key";
    else if (b === COLON) this.#expecting = "value";
    else if (this.#expecting === "value") {
      const numberStart = (b >= 0x30 && b <= 0x39) || b === 0x2d;
      this.#valueStarts(numberStart ? "number" : "other");
      if (numberStart && this.#capturing === "id-number") this.#capture(b);
    }
  }

  #openString(): void {
    this.#inString = true;
    if (this.#depth === 0) this.#noId = true; // a string at the top
    if (this.#depth !== 1) return;
    if (this.#expecting === "key") {
      this.#captured = [];
      this.#capturing = "key";
      this.#expecting = "colon";
      return;
    }
    if (this.#expecting === "value") this.#valueStarts("string");
  }

  /** A top-level member's value starts: if it is the id's, it is read (a string or number) or given up on. */
  #valueStarts(kind: "string" | "number" | "other"): void {
    const isId = this.#keyIsId && this.seeking;
    this.#expecting = "comma";
    this.#keyIsId = false;
    if (!isId) return;
    if (kind === "other") {
      this.#noId = true; // an object, array, true, null: no JSON-RPC id
      return;
    }
    this.#captured = kind === "string" ? [QUOTE] : [];
    this.#capturing = kind === "string" ? "id-string" : "id-number";
  }

  #capture(b: number): void {
    const captured = this.#captured!;
    if (captured.length < MAX_ID_BYTES) {
      captured.push(b);
      return;
    }
    // Too long for an id (or a key longer than "id"): not read further.
    if (this.#capturing !== "key") this.#noId = true;
    this.#captured = undefined;
    this.#capturing = undefined;
  }

  #endString(): void {
    const captured = this.#captured;
    const capturing = this.#capturing;
    this.#captured = undefined;
    this.#capturing = undefined;
    if (captured === undefined) return;
    if (capturing === "key") {
      this.#keyIsId = captured.length === 2 && captured[0] === 0x69 && captured[1] === 0x64; // "id"
      return;
    }
    captured.push(QUOTE);
    this.#settle(captured);
  }

  #endNumber(): void {
    const captured = this.#captured!;
    this.#captured = undefined;
    this.#capturing = undefined;
    this.#settle(captured);
  }

  /** The id's JSON text read: an id if it is a string or a safe integer (JSON-RPC's ids). */
  #settle(captured: number[]): void {
    try {
      const value: unknown = JSON.parse(decoder.decode(new Uint8Array(captured)));
      if (typeof value === "string" || Number.isSafeInteger(value)) this.#id = value as string | number;
      else this.#noId = true;
    } catch {
      this.#noId = true;
    }
  }
}

/** The shape of a whole text at once. */
export const shapeOf = (bytes: Uint8Array): JsonShape => {
  const shape = new JsonShape();
  shape.feed(bytes);
  shape.end();
  return shape;
};
