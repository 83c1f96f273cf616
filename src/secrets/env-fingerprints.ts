/**
 * What `derun run` and `derun shell` record about the secret-named variables of the environment
 * the command starts with, so that a reader can mask their values wherever the output shows them,
 * without the values ever being written down (docs/secrets.md).
 *
 * Per session: a random salt. Per value: its length, a 16-bit tag (FNV-1a seeded by the salt: a
 * cheap first test a reader runs on each candidate word) and a 128-bit salted SHA-256 (the test
 * that decides). The tag keeps 16 bits of a value at most; the hash lets only someone who can
 * already read the session directory (and so output.bin itself) test a guess. A reader never
 * serves these fields. Values shorter than MIN_VALUE_LENGTH, paths and plain words are not kept:
 * masking them would mangle the output, and their hash would be easy to guess.
 */

import type { SecretEnvFingerprints } from "../core/store/session-files.ts";

/** Shorter values are not kept (see the module comment). */
export const MIN_VALUE_LENGTH = 8;
/** Longer ones (a certificate in a variable) are not kept either: the PEM rule finds those. */
const MAX_VALUE_LENGTH = 4096;
/** At most this many values per session (an environment is not that big; this bounds meta.json). */
const MAX_VALUES = 64;

/**
 * Names of secret-carrying variables, as the well-kept rule sets name them: anything with TOKEN,
 * SECRET, PASSWORD/PASSWD/PASSPHRASE, API_KEY/APIKEY, PRIVATE_KEY, ACCESS_KEY, CREDENTIAL, AUTH
 * (not AUTHOR), or ending in _KEY / _PWD / _PASS. PWD and OLDPWD are the working directory.
 */
const SECRET_NAME =
  /TOKEN|SECRET|PASSW(?:OR)?D|PASSPHRASE|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY|CREDENTIAL|AUTH(?!OR)|_KEY(?:_ID)?$|_PWD$|_PASS$|^PASS$/i;

export const isSecretName = (name: string): boolean => name !== "PWD" && name !== "OLDPWD" && SECRET_NAME.test(name);

/** A value worth masking: long enough, one line, not a path, a number, a version or a boolean. */
export const isMaskableValue = (value: string): boolean =>
  value.length >= MIN_VALUE_LENGTH &&
  value.length <= MAX_VALUE_LENGTH &&
  !/[\r\n]/.test(value) &&
  !isPath(value) &&
  !/^v?\d+(?:[._-]\d+)*$/.test(value) && // a number, a version
  !/^(?:true|false|yes|no|null|none)$/i.test(value) &&
  !/^\s|\s$/.test(value);

/**
 * A path (SSH_AUTH_SOCK, GIT_ASKPASS), not a secret: what starts like one, unless a piece of it
 * between slashes is 16 characters of base 64 with mixed case and digits (a token that happens to
 * begin with `/`, as one in 64 base-64 tokens does).
 */
const isPath = (value: string): boolean =>
  /^(?:[/~]|\.{1,2}\/|[A-Za-z]:\\)/.test(value) &&
  !value
    .split("/")
    .some((piece) => /^[A-Za-z0-9+=]{16,}$/.test(piece) && /[A-Z]/.test(piece) && /[a-z]/.test(piece) && /[0-9]/.test(piece));

const SALT_BYTES = 16;

const hex = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");

/** The seed a salt gives the tag. */
export const saltSeed = (salt: string): number => Number.parseInt(salt.slice(0, 8), 16) >>> 0;

/**
 * The tag of `value` under a salt's seed (16 bits): FNV-1a over its UTF-16 code units, started from
 * the seed. Plain arithmetic, so a reader can afford it on every candidate word of a line.
 */
export function fingerprintTag(value: string, seed: number, from = 0, to = value.length): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = from; i < to; i++) h = Math.imul(h ^ value.charCodeAt(i), 0x01000193) >>> 0;
  return (h ^ (h >>> 16)) & 0xffff;
}

/** The salted hash of `value` (hex, 32 digits). */
export function fingerprintHash(value: string, salt: string): string {
  const hasher = new Bun.CryptoHasher("sha256");
  hasher.update(Buffer.from(salt, "hex"));
  hasher.update(value);
  return hex(hasher.digest().subarray(0, 16));
}

/** The fingerprints of `env`'s secret-named values, or undefined when it has none worth keeping. */
export function secretEnvFingerprints(env: Readonly<Record<string, string | undefined>>): SecretEnvFingerprints | undefined {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && isSecretName(name) && isMaskableValue(value)) values.add(value);
    if (values.size >= MAX_VALUES) break;
  }
  if (values.size === 0) return undefined;
  const salt = hex(crypto.getRandomValues(new Uint8Array(SALT_BYTES)));
  const seed = saltSeed(salt);
  return {
    salt,
    values: [...values].map((value) => ({ length: value.length, tag: fingerprintTag(value, seed), hash: fingerprintHash(value, salt) })),
  };
}
