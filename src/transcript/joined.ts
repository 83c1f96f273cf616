/**
 * The bytes of consecutive store slices as one array. The store cuts the slices of one read from
 * one buffer, so they are usually one wider view of it: no copy of up to a window per read.
 */

/** `parts` as one: a view when each follows the last in the same buffer, a copy otherwise. */
export const joined = (parts: readonly Uint8Array[]): Uint8Array => {
  const first = parts[0];
  if (!first) return new Uint8Array(0);
  let length = 0;
  for (const part of parts) {
    if (part.buffer !== first.buffer || part.byteOffset !== first.byteOffset + length) return Buffer.concat(parts);
    length += part.byteLength;
  }
  return new Uint8Array(first.buffer, first.byteOffset, length);
};
