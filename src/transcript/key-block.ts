/**
 * A search shows a line without the lines before it: a short line of a PEM private key's body
 * (its last line, often under the 16 characters the standalone body rule asks for) looked like any
 * other word there. A shown line made only of base-64 (or ending in a base-64 word behind a prefix) is masked when the bytes before it hold
 * a private key's BEGIN line and no END line after that one, as the text view masks it.
 */
import { PEM_BEGIN } from "../secrets/masker.ts";
import type { DerunOutputChannel } from "../core/enums.ts";
import { readWindow, type Transcript } from "./transcript.ts";

/** Bytes looked at before the line: an 8192-bit RSA key's PEM block is about 6.4 KB. */
const LOOKBACK = 16 * 1024;
/**
 * A line that could be part of a key's body: base-64 and its padding, alone or as the last word
 * behind a prefix (`cat -n`'s number, `grep -A`'s `file-`, a log's time and level).
 */
const BODY_LINE = /^((?:[^\n]*[ \t:|>-])?)([A-Za-z0-9+/]{4,}={0,2})[ \t\r]*$/;
const PEM_BEGIN_ALL = new RegExp(PEM_BEGIN.source, "g");

/** Which shown lines of one transcript lie inside a private key's block (looked up once per line). */
export class KeyBlocks {
  readonly #inside = new Map<number, Promise<boolean>>();

  constructor(private readonly t: Transcript) {}

  /** `text` (the line at `start`) with its body masked when it is a key's body line; undefined when it is not. */
  async masked(text: string, start: number): Promise<string | undefined> {
    const body = BODY_LINE.exec(text);
    if (!body) return undefined;
    let inside = this.#inside.get(start);
    if (inside === undefined) this.#inside.set(start, (inside = this.#lookBack(start)));
    if (!(await inside)) return undefined;
    const from = body[1]!.length;
    return text.slice(0, from) + "*".repeat(body[2]!.length) + text.slice(from + body[2]!.length);
  }

  async #lookBack(start: number): Promise<boolean> {
    const { bytes } = await readWindow(this.t, start - LOOKBACK, start);
    const before = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("latin1");
    let last = -1;
    for (const m of before.matchAll(PEM_BEGIN_ALL)) last = m.index;
    return last >= 0 && !before.includes("-----END", last);
  }
}

/**
 * Whether `text` could be a line of a key's body: it ends in a base-64 word (alone or behind a
 * prefix) that is not only lower-case letters (a key's body is random: its lines, even a short
 * last one, hold upper case, digits, `+`, `/` or padding; a word of prose does not).
 */
export function mayBeKeyBody(text: string): boolean {
  const body = BODY_LINE.exec(text);
  return body !== null && !/^[a-z]+$/.test(body[2]!);
}

/**
 * The channel whose private key's block is open at `start` (its BEGIN line in the LOOKBACK bytes
 * before, no END line after it), or undefined. A text view that begins there (a tail) has no line
 * before it to say its first lines are a key's body: it starts inside the block.
 */
export async function keyOpenAt(t: Transcript, start: number): Promise<DerunOutputChannel | undefined> {
  const { offset, bytes } = await readWindow(t, start - LOOKBACK, start);
  if (bytes.length === 0) return undefined;
  const before = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("latin1");
  let last = -1;
  for (const m of before.matchAll(PEM_BEGIN_ALL)) last = m.index;
  if (last < 0 || before.includes("-----END", last)) return undefined;
  const record = t.spans.firstEndingAfter(offset + last);
  return record < t.spans.count ? t.spans.channel(record) : undefined;
}
