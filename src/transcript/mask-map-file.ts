/**
 * mask-map.bin: a session's mask map (./mask-map.ts) kept in its directory between runs
 * (docs/format.md), so that `derun grep` pays the pass over every byte once, not on every run.
 * Binary, little-endian: a 96-byte header, then each range as two LEB128 numbers, its distance from
 * the end of the range before (from 0 for the first) and its length: 2 to 6 bytes a range for
 * outputs under 2 MiB between secrets, at most 16. A map holds them so in memory too (./mask-ranges.ts).
 *
 *   0  "DRNMASK\n"          8  format version (u32)   12 flags (u32; 1: more ranges than kept)
 *   16 key (32 bytes)       48 bytes covered (f64)    56 ranges (u32)     60 zero (u32)
 *   64 SHA-256 of bytes 0-63 and of the ranges
 *
 * The key is a digest of what the masks depend on besides the bytes: this format, derun's version
 * and the masking's, the rules in force with the person's redact.json, the session's environment
 * fingerprints and height, the session's id and start (../secrets/redactor.ts `key`). A file is used
 * only when every part holds: its magic, version, key and checksum, covered no more than output.bin
 * has, the ranges in order, apart, inside what it covers, and exactly filling the file. Anything else
 * reads as no file, and the map is built again: never a reason to show a byte unmasked.
 */
import pkg from "../../package.json" with { type: "json" };

const MAGIC = new TextEncoder().encode("DRNMASK\n");
const FORMAT = 1;
/**
 * Bumped when the masking changes what it masks without a rule changing (a new pass, a fix in one):
 * maps made before are then made again. derun's version is in the key as well.
 */
export const MASKING = 18;
/**
 * The digest of the code that decides the masks (src/secrets, the passes src/transcript/masking.ts
 * and mask-map.ts run, as Bun transpiles them), in the key as well. It cannot be forgotten:
 * test/secrets/masking-digest.test.ts fails, saying the new one, when that code changes and this
 * does not ("masking changed: bump MASKING and record the new digest").
 */
export const MASKING_SOURCE = "f2daa4b091fde66880f9bf563596e1b6b559b15d2a844e1017c3fde4b13409c6";
const HEADER = 96;
const FULL = 1;

/** What a map holds: its ranges as the file holds them (two LEB128 numbers each, checked), how many, and how far it got. */
export interface MaskMapParts {
  readonly ranges: Uint8Array;
  readonly count: number;
  readonly covered: number;
  /** More ranges than a map keeps: searched without one. */
  readonly full: boolean;
}

/**
 * Bytes a file's ranges may take past a map's `maxBytes`: a map is full when its encoded ranges
 * pass that, but its file holds its last range too (./mask-ranges.ts keeps it open, at most 16 bytes).
 */
const OPEN_RANGE = 32;

/** The largest file worth reading for a map of at most `maxBytes` bytes of ranges. */
export const maxFileBytes = (maxBytes: number): number => HEADER + maxBytes + OPEN_RANGE;

/** The key of a map of `sessionId` (started at `startedAt`) made with a redactor of key `redactorKey`. */
export function mapKey(redactorKey: string, sessionId: string, startedAt: string): Uint8Array {
  const text = JSON.stringify([FORMAT, pkg.version, MASKING, MASKING_SOURCE, redactorKey, sessionId, startedAt]);
  return new Bun.CryptoHasher("sha256").update(text).digest() as Uint8Array;
}

const checksum = (file: Uint8Array): Uint8Array =>
  new Bun.CryptoHasher("sha256").update(file.subarray(0, 64)).update(file.subarray(HEADER)).digest() as Uint8Array;

/** The file's bytes for `parts` under `key`. */
export function encodeMaskMap(parts: MaskMapParts, key: Uint8Array): Uint8Array {
  const ranges = parts.full ? new Uint8Array(0) : parts.ranges;
  const file = new Uint8Array(HEADER + ranges.length);
  file.set(ranges, HEADER);
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  file.set(MAGIC, 0);
  view.setUint32(8, FORMAT, true);
  view.setUint32(12, parts.full ? FULL : 0, true);
  file.set(key, 16);
  view.setFloat64(48, parts.covered, true);
  view.setUint32(56, parts.full ? 0 : parts.count, true);
  file.set(checksum(file), 64);
  return file;
}

const same = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * The map in `file`, when it is one made under `key` for no more than `outputBytes` bytes of
 * output with at most `maxBytes` bytes of ranges; undefined for anything else (see the module comment).
 */
export function decodeMaskMap(file: Uint8Array, key: Uint8Array, outputBytes: number, maxBytes: number): MaskMapParts | undefined {
  if (file.length < HEADER || !same(file.subarray(0, 8), MAGIC)) return undefined;
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const flags = view.getUint32(12, true);
  const covered = view.getFloat64(48, true);
  const count = view.getUint32(56, true);
  if (view.getUint32(8, true) !== FORMAT || (flags & ~FULL) !== 0 || view.getUint32(60, true) !== 0) return undefined;
  if (!Number.isSafeInteger(covered) || covered < 0 || covered > outputBytes || file.length > maxFileBytes(maxBytes)) return undefined;
  if (!same(file.subarray(16, 48), key) || !same(file.subarray(64, HEADER), checksum(file))) return undefined;
  if ((flags & FULL) !== 0)
    return count === 0 && file.length === HEADER ? { ranges: new Uint8Array(0), count: 0, covered, full: true } : undefined;
  // Each range at least two bytes: a count the file cannot hold is not read range by range.
  if (count > (file.length - HEADER) / 2) return undefined;
  const number = { at: HEADER };
  let end = 0;
  for (let k = 0; k < count; k++) {
    // Most numbers take one byte: read inline, the rest by readNumber.
    const g = file[number.at];
    const gap = g !== undefined && g < 0x80 ? (number.at++, g) : readNumber(file, number);
    const l = file[number.at];
    const length = l !== undefined && l < 0x80 ? (number.at++, l) : readNumber(file, number);
    // Apart (a gap of at least one byte after the first), not empty, inside what is covered.
    if (!(gap >= (k === 0 ? 0 : 1)) || !(length >= 1) || end + gap + length > covered) return undefined;
    end += gap + length;
  }
  // The ranges are taken as they are (./mask-ranges.ts reads them again, trusting what was checked here).
  return number.at === file.length ? { ranges: file.subarray(HEADER), count, covered, full: false } : undefined;
}

/** The LEB128 number at `cursor.at` (moved past it); NaN when it runs past the file or past 2^53. */
function readNumber(file: Uint8Array, cursor: { at: number }): number {
  let n = 0;
  for (let scale = 1; cursor.at < file.length && scale < 2 ** 53; scale *= 0x80) {
    const b = file[cursor.at++]!;
    n += (b & 0x7f) * scale;
    if (b < 0x80) return n;
  }
  return Number.NaN;
}
