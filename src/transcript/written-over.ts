/**
 * Secrets written over on their line, for the text readers (./assembled-text.ts): a token printed
 * whole and then written over by something shorter leaves a rest the view shows, too short for a
 * rule. The lines that may show such a rest (../views/overwritten-lines.ts) are masked as raw bytes
 * before the view draws them.
 */
import type { MaskRange } from "../secrets/redactor.ts";
import { overwrittenLines } from "../views/overwritten-lines.ts";
import type { Redactor } from "./masking.ts";

/**
 * The raw masking of `bytes` (one channel, the window with its context), for the secrets a line's
 * text no longer holds when the view draws it: a token printed whole and then written over on its
 * row (`\r`, backspaces, an erase), whose rest the line shows, too short for a rule. Run only on
 * lines that may show the rest of text written over on them (overwrittenLines): the others hold
 * what was written, and their masking finds it.
 *
 * A secret is masked in the window's bytes when it begins in the window, or is one the window
 * before masked and left unfinished (`carried`, by the output.bin offset of its first byte): a
 * window that did not run this pass (no edits near it) left the beginning of a secret to its line's
 * masking, which must see the whole token, so its rest is not masked here. Added to what the grid
 * masked (`grid`), each secret that begins in the window counted unless the grid's stars cover it
 * or it was counted as written already (a redrawn line's copies; `at`: indexes in `bytes`, the
 * grid's too); `carry`: those that run past the window's end.
 */
export function overwrittenMasks(
  redactor: Redactor,
  bytes: Uint8Array,
  grid: { readonly bytes: Uint8Array; readonly at: readonly number[] },
  window: { readonly start: number; readonly end: number },
  offsetOf: (k: number) => number,
  carried: ReadonlySet<number>,
  /** The lines that may show such a rest, when the caller found them already (overwrittenScan). */
  lines: Array<[number, number]> = overwrittenLines(bytes),
): { bytes: Uint8Array; at: number[]; carry: number[] } {
  const raw = maskLines(redactor, bytes, lines, carried.size > 0 ? window.start : -1);
  const at = [...grid.at];
  const carry: number[] = [];
  /** The secrets counted, by line and as written: a progress line redrawing a token shows it once, and says it once. */
  const counted = new Set<string>();
  let out: Uint8Array | undefined;
  for (const r of raw.ranges) {
    if (r.end <= window.start || r.start >= window.end) continue;
    const begins = r.start >= window.start;
    if (!begins && !carried.has(offsetOf(r.start))) continue;
    if (r.end > window.end) carry.push(offsetOf(r.start));
    const stars = raw.bytes.subarray(r.start, r.end);
    // The grid masked it already (its pieces assembled a longer token): counted there.
    if (equalBytes((out ?? grid.bytes).subarray(r.start, r.end), stars)) continue;
    out ??= Uint8Array.from(grid.bytes);
    out.set(stars, r.start);
    // The same secret on the same line (the line's start in `bytes`, then the secret as written).
    const line = r.start > 0 ? bytes.lastIndexOf(LF, r.start - 1) + 1 : 0;
    const secret = `${line}:${Buffer.from(bytes.buffer, bytes.byteOffset + r.start, r.end - r.start).toString("latin1")}`;
    if (begins && !counted.has(secret)) at.push(r.start);
    counted.add(secret);
  }
  return { bytes: out ?? grid.bytes, at, carry };
}

/**
 * The raw masking of `lines` of `bytes` (ranges of whole lines, ./overwritten-lines.ts), and of the
 * line that holds `carriedAt` (>= 0: a secret the window before masked may run on into it): `bytes`
 * with those lines' secrets masked (a copy when any was), and the ranges masked.
 */
export function maskLines(
  redactor: Redactor,
  bytes: Uint8Array,
  lines: Array<[number, number]>,
  carriedAt: number,
): { bytes: Uint8Array; ranges: MaskRange[] } {
  if (carriedAt >= 0 && carriedAt < bytes.length && !lines.some(([a, b]) => a <= carriedAt && carriedAt < b)) {
    const start = carriedAt > 0 ? bytes.lastIndexOf(LF, carriedAt - 1) + 1 : 0;
    const lf = bytes.indexOf(LF, carriedAt);
    lines = [...lines, [start, lf < 0 ? bytes.length : lf + 1] as [number, number]].sort((x, y) => x[0] - y[0]);
  }
  let out: Uint8Array | undefined;
  const ranges: MaskRange[] = [];
  // The ranges that end with their LF (all but one at the bytes' end) in one call, when there are many.
  const whole = lines.length >= BATCH_LINES ? lines.filter(([, b]) => bytes[b - 1] === LF) : [];
  const batched = whole.length >= BATCH_LINES ? maskBatch(redactor, bytes, whole) : undefined;
  if (batched) {
    if (batched.bytes !== bytes) out = batched.bytes;
    ranges.push(...batched.ranges);
    lines = lines.filter(([, b]) => bytes[b - 1] !== LF);
  }
  for (const [a, b] of lines) {
    const masked = redactor.bytes(bytes.subarray(a, b));
    if (masked.ranges.length === 0) continue;
    out ??= Uint8Array.from(bytes);
    out.set(masked.bytes, a);
    for (const r of masked.ranges) ranges.push({ start: r.start + a, end: r.end + a });
  }
  if (batched && lines.length > 0) ranges.sort((x, y) => x.start - y.start);
  return { bytes: out ?? bytes, ranges };
}

const LF = 0x0a;

/** Ranges from which {@link maskBatch} is tried (a full-screen program's windows have hundreds). */
const BATCH_LINES = 4;
/** After each range in a batch: BEL ends a string sequence left open in it, LF makes the BEL a line of its own. */
const SEPARATOR = new Uint8Array([0x07, LF]);

/**
 * {@link maskLines} in one call of the raw masking for all of `lines` (each ending with its LF), each followed by SEPARATOR:
 * what masking each on its own gives (the masking finds a text's secrets line by line, each range
 * ends with its LF, so no sequence is left open across a separator but a string's, which the BEL
 * ends), at one call's cost. Undefined where that is not sure (a PEM key's BEGIN, whose state runs
 * on from line to line, or a secret found across a separator): the caller masks each range on its own.
 */
function maskBatch(redactor: Redactor, bytes: Uint8Array, lines: Array<[number, number]>): ReturnType<typeof maskLines> | undefined {
  if (Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).indexOf(BEGIN) >= 0) return undefined;
  const starts: number[] = [];
  let size = 0;
  for (const [a, b] of lines) size += b - a + SEPARATOR.length;
  const joined = new Uint8Array(size);
  let at = 0;
  for (const [a, b] of lines) {
    starts.push(at);
    joined.set(bytes.subarray(a, b), at);
    joined.set(SEPARATOR, at + b - a);
    at += b - a + SEPARATOR.length;
  }
  const masked = redactor.bytes(joined);
  if (masked.ranges.length === 0) return { bytes, ranges: [] };
  const out = Uint8Array.from(bytes);
  const ranges: MaskRange[] = [];
  let k = 0;
  for (const r of masked.ranges) {
    while (k + 1 < lines.length && starts[k + 1]! <= r.start) k++;
    const [a, b] = lines[k]!;
    if (r.end > starts[k]! + b - a) return undefined;
    ranges.push({ start: r.start - starts[k]! + a, end: r.end - starts[k]! + a });
  }
  lines.forEach(([a, b], i) => out.set(masked.bytes.subarray(starts[i]!, starts[i]! + b - a), a));
  return { bytes: out, ranges };
}

const BEGIN = Buffer.from("-----BEGIN");

const equalBytes = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
