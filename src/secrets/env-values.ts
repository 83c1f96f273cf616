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

  /** Ranges `[start, end)` of `text` that are one of the values: one pass, looking only where a word starts. */
  find(text: string, found: (start: number, end: number) => void): void {
    const n = text.length;
    let after = 0; // a value found ends here: words starting inside it are not looked at
    for (let p = 0; p < n; p++) {
      if ((p > 0 && !isDelimiter(text.charCodeAt(p - 1))) || isDelimiter(text.charCodeAt(p)) || p < after) continue;
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
