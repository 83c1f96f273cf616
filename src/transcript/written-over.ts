/**
 * Secrets written over on their line, for the text readers (./assembled-text.ts): a token printed
 * whole and then written over by something shorter leaves a rest the view shows, too short for a
 * rule. The lines that may show such a rest (../views/overwritten-lines.ts) are masked as raw bytes
 * before the view draws them, and replayed onto the grid: a token put together there from pieces
 * and then written over is whole in no run of bytes.
 */
import type { MaskRange } from "../secrets/redactor.ts";
import { joinRanges, overwrittenScan } from "../views/overwritten-lines.ts";
import { maskAssembled } from "./assembled.ts";
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
 * grid's too); `carry`: those that run past the window's end. Unless the grid went over all of
 * `bytes` already (`replayed`), those lines are replayed onto it too (assembledOnLines). `open`:
 * `bytes` end inside a line that goes on past what was read (a line over LINE_AFTER, ./assembled-text.ts),
 * which may be written over out of sight: it is masked as one that was.
 */
export function overwrittenMasks(
  redactor: Redactor,
  bytes: Uint8Array,
  grid: { readonly bytes: Uint8Array; readonly at: readonly number[] },
  window: { readonly start: number; readonly end: number },
  offsetOf: (k: number) => number,
  carried: ReadonlySet<number>,
  options: {
    readonly replayed?: boolean;
    readonly open?: boolean;
    /** The lines that may show such a rest, when the caller found them already (overwrittenScan). */
    readonly lines?: Array<[number, number]>;
    /** With `lines`: the lines only replayed, a shorter redraw's rest erased (overwrittenScan's `erased`). */
    readonly erased?: Array<[number, number]>;
  } = {},
): { bytes: Uint8Array; at: number[]; carry: number[] } {
  const found = options.lines ? { lines: options.lines, erased: options.erased ?? [] } : overwrittenScan(bytes);
  // Only lines the window shows: a line wholly in the context around it (a line cut at the context's
  // end, half of a progress bar's windows) is masked and replayed on its own, its masks not kept.
  const shown = ([a, b]: readonly [number, number]) => b > window.start && a < window.end;
  const lines = (options.open ? withOpenLine(bytes, found.lines) : found.lines).filter(shown);
  // Lines whose rest was erased show nothing written over: replayed only (not masked as raw bytes).
  const erased = found.erased.filter((r) => shown(r) && !lines.some(([a, b]) => a < r[1] && r[0] < b));
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
  if (options.replayed) return { bytes: out ?? grid.bytes, at, carry };
  const pieces = assembledOnLines(redactor, bytes, out ?? grid.bytes, erased.length > 0 ? joinRanges(lines, erased) : lines, window);
  return { bytes: pieces.bytes, at: [...at, ...pieces.at], carry };
}

/** `lines` (ranges of whole lines, in order) with the last line of `bytes` too, whose LF was not read. */
function withOpenLine(bytes: Uint8Array, lines: Array<[number, number]>): Array<[number, number]> {
  const start = bytes.lastIndexOf(LF) + 1;
  if (start >= bytes.length) return lines;
  const last = lines[lines.length - 1];
  if (last && last[1] >= start) return [...lines.slice(0, -1), [last[0], bytes.length]];
  return [...lines, [start, bytes.length]];
}

/**
 * `masked` (`bytes` after the raw masking) with the secrets the terminal put together on `lines`
 * of `bytes` masked too, and the index in `bytes` of each one's first newly masked byte in
 * `window`: a token assembled on its line from pieces (the second half first, the first put
 * before it after `\r`; a wrong tail backspaced over) and then written over by something shorter
 * is whole in no run of bytes, nor in the line the view keeps. The lines are replayed onto the
 * grid (./assembled.ts), which looks at a row before an overwrite destroys what it held. Each run
 * of lines begins a line (column 0) and moves to no other row (else the grid went over all the
 * bytes: see overwrittenMasks).
 */
export function assembledOnLines(
  redactor: Redactor,
  bytes: Uint8Array,
  masked: Uint8Array,
  lines: ReadonlyArray<readonly [number, number]>,
  window: { readonly start: number; readonly end: number },
): { bytes: Uint8Array; at: number[] } {
  let out: Uint8Array | undefined;
  const at: number[] = [];
  for (const [a, b] of replayed(bytes, masked, lines)) {
    const input = (out ?? masked).subarray(a, b);
    const clamp = (k: number) => Math.min(b - a, Math.max(0, k - a));
    const r = maskAssembled(redactor, {
      bytes: bytes.subarray(a, b),
      masked: input,
      window: { start: clamp(window.start), end: clamp(window.end) },
      fresh: false,
    });
    if (r.bytes === input) continue;
    out ??= Uint8Array.from(masked);
    out.set(r.bytes, a);
    for (const k of r.at) at.push(k + a);
  }
  return { bytes: out ?? masked, at };
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

/**
 * The runs of `lines` the grid must see: all but the lines of printable ASCII redrawn after `\r`
 * only, each redraw but the last as long as the row (a curl-style meter): such a row is never
 * anything but its last redraw when an overwrite begins, which the raw masking saw whole, and its
 * last state is the line the view shows, which its masking sees. Unless the raw masking masked some
 * of the line (`masked` differs there): the view then draws stars where a piece was, and a token
 * that piece finished with the last redraw (`ghp_` and 12 over a private key's body line) is no
 * token to the line's masking; the grid sees the letters.
 */
function* replayed(bytes: Uint8Array, masked: Uint8Array, lines: ReadonlyArray<readonly [number, number]>): Generator<[number, number]> {
  const skipped = (start: number, end: number) =>
    redrawnWhole(bytes, start, end) && (masked === bytes || equalBytes(masked.subarray(start, end), bytes.subarray(start, end)));
  for (const [a, b] of lines) {
    let from = -1;
    for (let start = a; start < b; ) {
      const lf = bytes.indexOf(LF, start);
      const end = lf < 0 || lf >= b ? b : lf + 1;
      if (from < 0 && !skipped(start, end)) from = start;
      else if (from >= 0 && skipped(start, end)) {
        yield [from, start];
        from = -1;
      }
      start = end;
    }
    if (from >= 0) yield [from, b];
  }
}

/** The line `[start, end)` is printable ASCII and `\r`s, and no redraw before its last is shorter than the row. */
function redrawnWhole(bytes: Uint8Array, start: number, end: number): boolean {
  /** The row's length, the length of the redraw since the last `\r`, and whether the row is that redraw over an old tail. */
  let row = 0;
  let run = 0;
  let tail = false;
  for (let i = start; i < end; i++) {
    const c = bytes[i]!;
    if (c >= 0x20 && c < 0x7f) {
      if (run === 0 && tail) return false; // a row holding an old tail is written over: the grid looks at it
      run++;
    } else if (c === CR) {
      if (run > 0) [tail, row] = [run < row, Math.max(row, run)];
      run = 0;
    } else if (c !== LF || i !== end - 1) return false;
  }
  return true;
}

const LF = 0x0a;
const CR = 0x0d;

/** Ranges from which {@link maskBatch} is tried (a full-screen program's windows have hundreds). */
const BATCH_LINES = 4;
/**
 * After each range in a batch: LF ends the range's last line even when an escape left open before
 * the range's own LF took that LF for its final (`ESC[` LF: on its own the line's text ends there, and
 * a rule anchored at the line's end, or an environment value, must still find it); BEL ends a string
 * sequence left open; LF makes the BEL a line of its own.
 */
const SEPARATOR = new Uint8Array([LF, 0x07, LF]);

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
