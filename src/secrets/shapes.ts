/**
 * What a generic rule never masks, whatever key it follows: agents need commit ids, sha sums,
 * UUIDs, image digests, paths and version numbers, and placeholders are not secrets. And the
 * entropy a value must have to be taken for a random one.
 */

const KEEP: readonly RegExp[] = [
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, // a UUID
  /^(?:[0-9a-f]{7,12}|[0-9a-f]{40}|[0-9a-f]{64}|[0-9a-f]{128})$/i, // a commit id (short or whole), a sha1/sha256/sha512 sum
  /^(?:sha(?:1|224|256|384|512)|md5|blake2b?|blake3)[:-]/i, // a digest: sha256:…, sha512-… (npm integrity)
  /^(?:\/|~\/|\.{1,2}\/|[A-Za-z]:\\)/, // a path
  /^v?\d+(?:\.\d+)+(?:[-+][0-9A-Za-z.-]+)?$/, // a version
  /^[\d.,:-]+$/, // a number, a time
  /^\\(?:x[0-9a-f]{2}|u[0-9a-f]{4}|e|0?33)/i, // a control character written out (`\x1b]0;…`): prose or source, not a value
  // A placeholder or a reference to one: ***, xxxx, <token>, ${TOKEN}, $TOKEN, %TOKEN%, {{ secret }}, null.
  /^(?:\*+|[xX]+|\.+|<[^>]*>|\[[^\]]*\]|\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|%[A-Za-z_][A-Za-z0-9_]*%|\{\{.*\}\}|null|nil|none|undefined|true|false|redacted|hidden|changeme|required|optional|string|password|passwd|pass|secret|token)$/i,
];

/** Whether a generic rule's candidate has a shape derun never masks. */
export const isKeptShape = (value: string): boolean => KEEP.some((re) => re.test(value));

/** Shannon entropy of `text`, in bits per character. */
export function entropy(text: string): number {
  const counts = new Map<number, number>();
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}
