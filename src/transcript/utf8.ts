/**
 * UTF-8 character boundaries over raw bytes, so a text read can stop where the next read starts
 * cleanly. Bytes that are not valid UTF-8 are never repaired here: the decoder turns them into
 * U+FFFD, and these functions only promise not to split a sequence that could be a character.
 */

/** Bytes in the sequence a lead byte starts; 1 for ASCII and for bytes that cannot start one. */
export const utf8SequenceLength = (lead: number): number => {
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 1;
};

const isContinuation = (byte: number): boolean => (byte & 0xc0) === 0x80;

/**
 * The largest offset `<= end` in `bytes` that does not fall inside a multi-byte sequence: `end`
 * itself unless a lead byte within the last three bytes before it announces a sequence that
 * reaches past `end`, in which case that lead byte's offset.
 */
export const utf8Boundary = (bytes: Uint8Array, end: number): number => {
  for (let i = end - 1; i >= 0 && i >= end - 3; i--) {
    const byte = bytes[i]!;
    if (isContinuation(byte)) continue;
    return i + utf8SequenceLength(byte) > end ? i : end;
  }
  return end;
};

/**
 * Bytes of the character that starts at `bytes[0]`, as far as they are there: the lead byte and the
 * continuation bytes that follow it, at most what the lead byte announces. A sequence cut short
 * (a lead byte followed by something else) ends where it was cut, so the valid character after it
 * is never taken with it.
 */
export const utf8SequenceHere = (bytes: Uint8Array): number => {
  const announced = utf8SequenceLength(bytes[0]!);
  let length = 1;
  while (length < announced && length < bytes.length && isContinuation(bytes[length]!)) length++;
  return length;
};

/**
 * Where a text read of `bytes` stops when at most `limit` of them fit: {@link utf8Boundary}, or,
 * when not one whole character fits, after the first character, so that a read always progresses
 * (at most 3 bytes past `limit`). While more bytes may still come (`live`), a first character cut
 * short by the end of `bytes` waits for them (0).
 */
export const utf8CutAtLeastOne = (bytes: Uint8Array, limit: number, live: boolean): number => {
  const end = utf8Boundary(bytes, Math.min(limit, bytes.length));
  if (end > 0 || bytes.length === 0) return end;
  const here = utf8SequenceHere(bytes);
  return here < bytes.length || !live || here === utf8SequenceLength(bytes[0]!) ? here : 0;
};

const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/** Decode as UTF-8, invalid bytes as U+FFFD, a leading BOM kept (it is a byte of the output). */
export const decodeUtf8 = (bytes: Uint8Array): string => decoder.decode(bytes);

/** `text` cut to at most `maxBytes` bytes of UTF-8 between characters (one whole character if none fits). */
export const clipUtf8 = (text: string, maxBytes: number): string => {
  if (text.length * 3 <= maxBytes) return text; // a UTF-16 unit is at most 3 bytes of UTF-8
  const bytes = Buffer.from(text);
  return bytes.length <= maxBytes ? text : decodeUtf8(bytes.subarray(0, utf8CutAtLeastOne(bytes, maxBytes, false)));
};
