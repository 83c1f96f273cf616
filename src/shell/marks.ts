/**
 * Finds shell integration marks in a stream of output bytes: OSC 133 (FinalTerm, iTerm2, kitty,
 * WezTerm: `A` prompt start, `B` input start, `C` output start, `D;<exit>` command end) and OSC 633
 * (VS Code: the same four plus `E;<command line>` and `P;Cwd=<dir>`), terminated by BEL or ST
 * (`ESC \`). It only reads: the bytes it is given are never changed.
 *
 * Streaming: a mark may be split across chunks at any byte. Bounded: an OSC that is still open after
 * `maxMarkBytes` is dropped, and nothing else is ever held. The common chunk (no `ESC ]` in it)
 * costs one native search.
 */

/** Which family a mark belongs to. */
export type MarkCode = 133 | 633;

export interface Mark {
  readonly code: MarkCode;
  /** The letter after the code: `A`, `B`, `C`, `D`, `E`, `P`, ... (any non-empty first field). */
  readonly kind: string;
  /** The fields after the kind, split at `;`, as UTF-8 text, still escaped (see {@link unescapeMarkValue}). */
  readonly params: readonly string[];
  /** Stream offset of the mark's first byte (its ESC). */
  readonly start: number;
  /** Stream offset one past its last byte (the BEL, or the `\` of ST): the mark is `[start, end)`. */
  readonly end: number;
}

export interface MarkParserOptions {
  /** Stream offset of the first byte that will be pushed (default 0). */
  readonly startOffset?: number;
  /** The longest OSC payload kept while waiting for its terminator (default {@link DEFAULT_MAX_MARK_BYTES}). */
  readonly maxMarkBytes?: number;
}

/** Long enough for any mark but a pasted script's command line; small enough to hold per session. */
export const DEFAULT_MAX_MARK_BYTES = 8192;

const ESC = 0x1b;
const BEL = 0x07;
const CAN = 0x18; // CAN and SUB abort a control string in every VT parser
const SUB = 0x1a;
const BACKSLASH = 0x5c;
const SEMICOLON = 0x3b;
const OSC_INTRO = Buffer.from("\x1b]");
const PREFIX_LENGTH = 4; // "133;" or "633;"
const NO_MARKS: readonly Mark[] = Object.freeze([]);
const utf8 = new TextDecoder();

enum State {
  Scan, // looking for ESC ]
  Esc, // the previous chunk ended with an ESC that may start ESC ]
  Payload, // inside ESC ] ..., collecting
  PayloadEsc, // inside the payload, the previous chunk ended with an ESC that may start ST
}

export class MarkParser {
  #offset: number;
  #state = State.Scan;
  readonly #max: number;
  /** Payload bytes of the open OSC (after `ESC ]`), and the stream offset of its ESC. */
  #payload: Uint8Array;
  #length = 0;
  #markStart = 0;

  constructor(options: MarkParserOptions = {}) {
    this.#offset = options.startOffset ?? 0;
    this.#max = Math.max(PREFIX_LENGTH + 1, options.maxMarkBytes ?? DEFAULT_MAX_MARK_BYTES);
    this.#payload = new Uint8Array(Math.min(256, this.#max));
  }

  /**
   * Where a control string the parser is still inside (or an ESC that may start one) began, as a
   * stream offset; undefined between them. What decides on a mark before it ends (a filter of what
   * is recorded) holds the bytes from here until it does.
   */
  get pendingStart(): number | undefined {
    if (this.#state === State.Esc) return this.#offset - 1;
    return this.#state === State.Scan ? undefined : this.#markStart;
  }

  /** Stream offset of the next byte to be pushed. */
  get offset(): number {
    return this.#offset;
  }

  /** Reads the next chunk of the stream; returns the marks that end in it, in order. */
  push(chunk: Uint8Array): readonly Mark[] {
    const base = this.#offset;
    this.#offset += chunk.length;
    if (chunk.length === 0) return NO_MARKS;
    let marks: Mark[] | undefined;
    let i = 0;
    // An ESC at the end of the previous chunk: the first byte here says what it was.
    if (this.#state === State.PayloadEsc && chunk[0] === BACKSLASH) {
      const mark = this.#close(base + 1);
      if (mark) marks = [mark];
      i = 1;
    } else if (this.#state === State.Esc || this.#state === State.PayloadEsc) {
      // Not ST: that ESC aborted any open OSC, and may itself open the next one.
      this.#state = State.Scan;
      if (chunk[0] === 0x5d) {
        this.#open(base - 1);
        i = 1;
      }
    }
    const view = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    while (i < chunk.length) {
      if (this.#state === State.Scan) {
        const found = view.indexOf(OSC_INTRO, i);
        if (found < 0) {
          if (chunk[chunk.length - 1] === ESC) this.#state = State.Esc;
          break;
        }
        this.#open(base + found);
        i = found + 2;
        continue;
      }
      // State.Payload: collect up to the terminator.
      const byte = chunk[i]!;
      if (byte === BEL) {
        const mark = this.#close(base + i + 1);
        if (mark) (marks ??= []).push(mark);
        i += 1;
      } else if (byte === ESC) {
        if (i + 1 === chunk.length) {
          this.#state = State.PayloadEsc;
          break;
        }
        if (chunk[i + 1] === BACKSLASH) {
          const mark = this.#close(base + i + 2);
          if (mark) (marks ??= []).push(mark);
          i += 2;
        } else this.#state = State.Scan; // rescan from this ESC: it may open the next OSC
      } else if (byte === CAN || byte === SUB) {
        this.#state = State.Scan;
        i += 1;
      } else {
        this.#append(byte);
        i += 1;
        // Not a mark (another OSC: a title, a hyperlink): no need to hold it; scan on.
        if (this.#length === PREFIX_LENGTH && markCode(this.#payload) === undefined) this.#state = State.Scan;
        else if (this.#length >= this.#max) this.#state = State.Scan; // unterminated: abandoned
      }
    }
    return marks ?? NO_MARKS;
  }

  #open(start: number): void {
    this.#state = State.Payload;
    this.#markStart = start;
    this.#length = 0;
  }

  #append(byte: number): void {
    if (this.#length === this.#payload.length) {
      const grown = new Uint8Array(Math.min(this.#max, this.#payload.length * 2));
      grown.set(this.#payload);
      this.#payload = grown;
    }
    this.#payload[this.#length++] = byte;
  }

  /** The OSC ended at `end` (exclusive): a mark, if it was one. */
  #close(end: number): Mark | undefined {
    this.#state = State.Scan;
    if (this.#length <= PREFIX_LENGTH) return undefined;
    const code = markCode(this.#payload);
    if (code === undefined) return undefined;
    const fields = splitFields(this.#payload.subarray(PREFIX_LENGTH, this.#length));
    const kind = fields[0]!;
    if (kind === "") return undefined;
    return { code, kind, params: fields.slice(1), start: this.#markStart, end };
  }
}

function markCode(payload: Uint8Array): MarkCode | undefined {
  if (payload[1] !== 0x33 || payload[2] !== 0x33 || payload[3] !== SEMICOLON) return undefined;
  return payload[0] === 0x31 ? 133 : payload[0] === 0x36 ? 633 : undefined;
}

function splitFields(bytes: Uint8Array): string[] {
  const fields: string[] = [];
  let from = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i === bytes.length || bytes[i] === SEMICOLON) {
      fields.push(utf8.decode(bytes.subarray(from, i)));
      from = i + 1;
    }
  }
  return fields;
}

/**
 * A value from an `E` or `P` mark as text: `\\` is a backslash and `\xHH` a byte (VS Code's
 * escaping, which shells apply byte by byte), and the bytes are read as UTF-8.
 */
export function unescapeMarkValue(value: string): string {
  if (!value.includes("\\")) return value;
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  let literal = 0;
  const flush = (to: number) => {
    if (to > literal) for (const b of encoder.encode(value.slice(literal, to))) bytes.push(b);
  };
  for (let i = 0; i < value.length; i++) {
    if (value[i] !== "\\") continue;
    if (value[i + 1] === "\\") {
      flush(i);
      bytes.push(BACKSLASH);
      literal = i + 2;
      i += 1;
    } else if ((value[i + 1] === "x" || value[i + 1] === "X") && /^[0-9a-fA-F]{2}$/.test(value.slice(i + 2, i + 4))) {
      flush(i);
      bytes.push(Number.parseInt(value.slice(i + 2, i + 4), 16));
      literal = i + 4;
      i += 3;
    }
  }
  flush(value.length);
  return utf8.decode(new Uint8Array(bytes));
}
