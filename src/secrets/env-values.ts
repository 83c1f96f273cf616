/**
 * Finding the values of the secret-named variables a session started with, from their
 * fingerprints in meta.json (src/secrets/env-fingerprints.ts): each word of a line with the
 * length of a value and a delimiter on either side is a candidate; its 16-bit tag is compared
 * first, and only a candidate with the right tag is hashed.
 */
import { fingerprintHash, fingerprintTag, saltSeed } from "./env-fingerprints.ts";
import type { SecretEnvFingerprints } from "../core/store.ts";

/** Characters that end a value where it is printed: blanks, quotes, `=`, `:`, brackets, separators. */
const DELIMITER = new Uint8Array(128);
for (const c of " \t\r\n\v\f\"'`=:,;()[]{}<>|@&") DELIMITER[c.charCodeAt(0)] = 1;
const isDelimiter = (code: number): boolean => code < 128 && DELIMITER[code] === 1;
/** What a value that begins with a delimiter is looked for after. */
const OPENS_VALUE = new Uint8Array(128);
for (const c of " \t=:\"'") OPENS_VALUE[c.charCodeAt(0)] = 1;

export class EnvValues {
  readonly #salt: string;
  readonly #seed: number;
  /** The values' lengths, and per length the tags and hashes of the values that long. */
  readonly #lengths: number[] = [];
  readonly #tags: Set<number>[] = [];
  readonly #hashes: Set<string>[] = [];

  constructor(fingerprints: SecretEnvFingerprints) {
    this.#salt = fingerprints.salt;
    this.#seed = saltSeed(fingerprints.salt);
    for (const v of fingerprints.values) {
      let k = this.#lengths.indexOf(v.length);
      if (k < 0) k = this.#lengths.push(v.length) - 1;
      (this.#tags[k] ??= new Set()).add(v.tag);
      (this.#hashes[k] ??= new Set()).add(v.hash);
    }
  }

  /**
   * Ranges `[start, end)` of `text` that are one of the values: one pass, looking only where a word
   * starts. A text with a backslash is also read with its escapes undone (`\"`, `\\`, `\n`, `\u0041`
   * as a JSON string or a log writes them), so a value printed escaped, or glued to a `\n` written
   * out, is found too; its range covers the escapes that spelled it.
   */
  find(text: string, found: (start: number, end: number) => void): void {
    this.#find(text, found);
    // Only the lines with a backslash are read again (few are): the text may be a window of many.
    for (let b = text.indexOf("\\"); b >= 0; ) {
      const from = text.lastIndexOf("\n", b) + 1;
      let to = text.indexOf("\n", b);
      if (to < 0) to = text.length;
      const line = text.slice(from, to);
      const { plain, map } = unescaped(line);
      this.#find(plain, (start, end) => found(from + map[start]!, from + map[end - 1]! + escapeLength(line, map[end - 1]!)));
      b = text.indexOf("\\", to);
    }
  }

  #find(text: string, found: (start: number, end: number) => void): void {
    const n = text.length;
    let after = 0; // a value found ends here: words starting inside it are not looked at
    for (let p = 0; p < n; p++) {
      if (p < after || (p > 0 && !isDelimiter(text.charCodeAt(p - 1)))) continue;
      // A word starts here, or a value that itself begins with a delimiter (`KEY=(x…`, `"(x…"`), after a
      // blank, `=`, `:` or a quote (not every run of brackets: that would cost every line a look).
      const c = text.charCodeAt(p);
      if (isDelimiter(c) && (c <= 0x20 || c === 0x22 || c === 0x27 || (p > 0 && OPENS_VALUE[text.charCodeAt(p - 1)] !== 1))) continue;
      for (let k = 0; k < this.#lengths.length; k++) {
        const end = p + this.#lengths[k]!;
        if (end > n || (end < n && !isDelimiter(text.charCodeAt(end)))) continue;
        if (
          !this.#tags[k]!.has(fingerprintTag(text, this.#seed, p, end)) ||
          !this.#hashes[k]!.has(fingerprintHash(text.slice(p, end), this.#salt))
        )
          continue;
        found(p, end);
        after = end;
        break;
      }
    }
  }
}

const SIMPLE_ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", b: "\b", f: "\f", '"': '"', "\\": "\\", "/": "/", "'": "'" };

/** `text` with its backslash escapes undone, and for each character of the result where it starts in `text`. */
function unescaped(text: string): { plain: string; map: Int32Array } {
  const map = new Int32Array(text.length + 1);
  let plain = "";
  for (let i = 0; i < text.length; ) {
    map[plain.length] = i;
    const next = text[i + 1];
    if (text[i] === "\\" && next !== undefined && next in SIMPLE_ESCAPES) {
      plain += SIMPLE_ESCAPES[next];
      i += 2;
    } else if (text[i] === "\\" && next === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
      plain += String.fromCharCode(Number.parseInt(text.slice(i + 2, i + 6), 16));
      i += 6;
    } else if (text[i] === "\\" && next === "x" && /^[0-9a-fA-F]{2}$/.test(text.slice(i + 2, i + 4))) {
      plain += String.fromCharCode(Number.parseInt(text.slice(i + 2, i + 4), 16));
      i += 4;
    } else plain += text[i++];
  }
  return { plain, map: map.subarray(0, plain.length + 1) };
}

/** Characters of `text` that spell the one character starting at `at` (an escape or itself). */
const escapeLength = (text: string, at: number): number => {
  if (text[at] !== "\\") return 1;
  if (text[at + 1] === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(at + 2, at + 6))) return 6;
  if (text[at + 1] === "x" && /^[0-9a-fA-F]{2}$/.test(text.slice(at + 2, at + 4))) return 4;
  return text[at + 1] !== undefined && text[at + 1]! in SIMPLE_ESCAPES ? 2 : 1;
};

/** The fingerprints of a meta.json, when they have the shape derun writes (another writer's are ignored). */
export function envValuesOf(field: unknown): EnvValues | undefined {
  if (typeof field !== "object" || field === null) return undefined;
  const { salt, values } = field as { salt?: unknown; values?: unknown };
  if (typeof salt !== "string" || !/^[0-9a-f]{32}$/.test(salt) || !Array.isArray(values)) return undefined;
  const good = values.filter(
    (v): v is { length: number; tag: number; hash: string } =>
      typeof v === "object" &&
      v !== null &&
      Number.isSafeInteger(v.length) &&
      v.length > 0 &&
      Number.isInteger(v.tag) &&
      typeof v.hash === "string",
  );
  return good.length === 0 ? undefined : new EnvValues({ salt, values: good });
}
