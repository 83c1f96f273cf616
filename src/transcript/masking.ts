/**
 * Where the read engine masks secrets (./redact): the helpers each read path calls just before
 * its lines or bytes leave the engine. Text lines are masked one by one (a PEM key's state kept
 * per channel); raw bytes per channel with up to CONTEXT bytes read before and after the window,
 * so a secret cut by the window's edge, split across writes, or coloured in the middle is still
 * seen whole, and one the terminal assembles from pieces is masked in the bytes that drew it
 * (./assembled.ts). Masks keep lengths, so every cursor and line number stays the same.
 */
import type { DerunOutputChannel } from "../core/enums.ts";
import type { OutputSlice, Store } from "../core/store.ts";
import type { TextLine } from "../views/text.ts";
import { joined } from "./joined.ts";
import { maskAssembled } from "./assembled.ts";
import { drawOutOfOrder, FAR_CONTEXT, mayJoinFar, rowsStayNear } from "./far-context.ts";
import { longContext, tokenByte } from "./long-run.ts";
import { redactionEnabled, redactorFor, type LineState, type Redactor } from "../secrets/redactor.ts";

export { configureRedaction, redactionEnabled, configPath, redactorFor, type Redactor } from "../secrets/redactor.ts";

/** Bytes looked at on either side of a raw window: a secret this close to its edge is seen whole. */
export const CONTEXT = 4096;

/** An answer's `redacted` field: how many secrets were masked, absent when there were none. */
export const redactedField = (count: number): { readonly redacted?: number } => (count > 0 ? { redacted: count } : {});

/** A line that went through {@link LineMasking}: how many secrets it had. */
export interface MaskedLine {
  readonly redacted?: number;
  /** Masked already (before a cut): not to be looked at again. */
  readonly masked?: true;
}

/** Secrets masked in these lines. */
export const redactedIn = (lines: Iterable<object>): number => {
  let n = 0;
  for (const l of lines) n += (l as MaskedLine).redacted ?? 0;
  return n;
};

/** Text lines of a stream, masked as they pass, with the count of values masked so far. */
export class LineMasking {
  readonly #redactor: Redactor;
  readonly #states = new Map<DerunOutputChannel, LineState>();
  /** Offsets of secrets the assembled pass masked in the bytes (./assembled-text.ts), in order: each counted with the line holding it. */
  readonly #assembled: number[] = [];
  #sorted = true;
  count = 0;

  constructor(redactor: Redactor) {
    this.#redactor = redactor;
  }

  #state(channel: DerunOutputChannel): LineState {
    let state = this.#states.get(channel);
    if (!state) this.#states.set(channel, (state = { inKey: false }));
    return state;
  }

  get enabled(): boolean {
    return this.#redactor.enabled;
  }

  /** The next lines of `channel` are inside a PEM key's body (a view that starts there: ./key-block.ts). */
  startInKey(channel: DerunOutputChannel): void {
    this.#state(channel).inKey = true;
  }

  /** Inside a PEM key's body on `channel`: the next lines are masked whole, whatever they hold. */
  inKey(channel: DerunOutputChannel): boolean {
    return this.#states.get(channel)?.inKey === true;
  }

  /**
   * Secrets masked in the bytes before the view drew its lines (the offset in output.bin of a byte
   * of each): the line whose bytes hold that offset counts them as its own.
   */
  noteAssembled(offsets: readonly number[]): void {
    if (offsets.length === 0) return;
    const last = this.#assembled[this.#assembled.length - 1];
    if (last !== undefined && offsets[0]! < last) this.#sorted = false;
    for (let i = 0; i < offsets.length; i++) {
      if (i > 0 && offsets[i]! < offsets[i - 1]!) this.#sorted = false;
      this.#assembled.push(offsets[i]!);
    }
  }

  /** How many of the noted offsets lie in `[start, end)`. */
  #assembledIn(start: number, end: number): number {
    const list = this.#assembled;
    if (list.length === 0) return 0;
    if (!this.#sorted) {
      list.sort((a, b) => a - b);
      this.#sorted = true;
    }
    let [lo, hi] = [0, list.length];
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (list[mid]! < start) lo = mid + 1;
      else hi = mid;
    }
    let n = 0;
    while (lo + n < list.length && list[lo + n]! < end) n++;
    return n;
  }

  /** The line with its secrets masked and their number in `redacted` (the same object when it had none). */
  line<L extends TextLine>(line: L, present?: ReadonlySet<string>): L & MaskedLine {
    if (!this.#redactor.enabled || (line as MaskedLine).masked) return line;
    // A partial line is looked at again when it grows: it does not move the key state on.
    const masked = closedAtCut(
      this.#redactor,
      line,
      this.#redactor.text(line.text, line.partial ? undefined : this.#state(line.channel), present),
    );
    const count = masked.count + this.#assembledIn(line.start, line.end);
    this.count += count;
    return count === 0 ? line : { ...line, text: masked.text, redacted: count, masked: true };
  }

  /** A batch of lines; the rules' keywords are looked for once in the whole batch, then only those found in each line. */
  lines<L extends TextLine>(lines: readonly L[]): L[] {
    if (!this.#redactor.enabled) return [...lines];
    const present = lines.length > 4 ? this.#redactor.keywordsIn(lines.map((l) => l.text).join("\n")) : undefined;
    return lines.map((l) => this.line(l, present));
  }
}

/**
 * What a rule needs at a token's end, for a line cut before it (`cut`: a view that keeps the first
 * 4096 characters of a line, as the failure view does): a JWT's last dot and 8 characters.
 */
const CUT_CLOSE = ".AAAAAAAA";

/**
 * `masked`, the masking of `line`; or, when the line was cut inside a run of token bytes that holds
 * a dot (a JWT longer than the line kept, ./long-run.ts), with that run masked as if the token ended
 * at the cut: its start is masked as it would be had the line kept its end. A blob without a dot
 * (base64) costs a scan of its run, no masking again.
 */
function closedAtCut(redactor: Redactor, line: TextLine, masked: { text: string; count: number }): { text: string; count: number } {
  const { text } = line;
  if (!line.cut || !tokenByte(text.charCodeAt(text.length - 1))) return masked;
  let from = text.length;
  while (from > 0 && tokenByte(text.charCodeAt(from - 1))) from--;
  const run = text.slice(from);
  if (!run.includes(".")) return masked;
  const closed = redactor.text(run + CUT_CLOSE);
  const open = masked.text.slice(from);
  if (closed.text.startsWith(open)) return masked;
  // Both maskings' masks: the closed one may see a match the open one did not, and not the other way.
  let tail = "";
  for (let i = 0; i < open.length; i++) tail += closed.text[i] === "*" ? "*" : open[i];
  // The cut token is one secret more (the open masking saw none of it, or the two would agree).
  return { text: masked.text.slice(0, from) + tail, count: masked.count + 1 };
}

/** A one-off text (a command line, a directory, a context line) masked. */
export function maskText(redactor: Redactor, text: string): { text: string; count: number } {
  return redactor.enabled ? redactor.text(text) : { text, count: 0 };
}

/** The redactor of a session a read was given only the id of. */
export async function redactorOf(store: Store, sessionId: string): Promise<Redactor> {
  return redactionEnabled() ? redactorFor((await store.get(sessionId)).meta) : redactorFor(undefined);
}

/**
 * Slices of one read (consecutive, in file order) with their secrets masked, and how many secrets
 * they show. Reads CONTEXT bytes before and after them; at a live session's tail the bytes after
 * are not there yet.
 */
export async function maskSlices(
  store: Store,
  sessionId: string,
  redactor: Redactor,
  slices: readonly OutputSlice[],
): Promise<{ slices: OutputSlice[]; count: number }> {
  if (!redactor.enabled || slices.length === 0) return { slices: [...slices], count: 0 };
  const lo = slices[0]!.start;
  const hi = slices[slices.length - 1]!.end;
  const from = Math.max(0, lo - CONTEXT);
  const before = from < lo ? (await store.read(sessionId, from, lo - from)).slices.filter((s) => s.end <= lo) : [];
  const after = (await store.read(sessionId, hi, CONTEXT)).slices.filter((s) => s.start >= hi);
  const near = maskBetween(redactor, before, slices, after);
  return maskFarther(store, sessionId, redactor, { slices, before, after }, near, { before: from > 0, after: bytesIn(after) >= CONTEXT });
}

const bytesIn = (slices: readonly OutputSlice[]): number => slices.reduce((n, s) => n + s.bytes.length, 0);

/**
 * `near`, the window masked with CONTEXT (`read.before`, `read.after`) around it; or, when it may
 * still show a piece of a token whose rest is farther away (./far-context.ts) and the session has
 * bytes past that context (`more`), the window masked again with FAR_CONTEXT read on either side.
 * The farther masking sees all the nearer one did, and more. A token longer than CONTEXT across the
 * window's edge is first masked with its whole run (./long-run.ts), within the same FAR_CONTEXT.
 */
export async function maskFarther(
  store: Store,
  sessionId: string,
  redactor: Redactor,
  read: { readonly slices: readonly OutputSlice[]; readonly before: readonly OutputSlice[]; readonly after: readonly OutputSlice[] },
  near: { slices: OutputSlice[]; count: number },
  more: { readonly before: boolean; readonly after: boolean },
): Promise<{ slices: OutputSlice[]; count: number }> {
  const { slices } = read;
  if (!redactor.enabled || slices.length === 0 || !(more.before || more.after)) return near;
  // A token longer than CONTEXT across the window's edge: masked with its whole run (./long-run.ts).
  const long = await longContext(store, sessionId, { ...read, more }, CONTEXT);
  const masked = long ? maskBetween(redactor, long.before, slices, long.after) : near;
  if (!mayJoinFar({ masked: masked.slices, before: read.before, after: read.after }, redactor.rows)) return masked;
  const lo = slices[0]!.start;
  const hi = slices[slices.length - 1]!.end;
  const after = more.after ? (await store.read(sessionId, hi, FAR_CONTEXT)).slices.filter((s) => s.start >= hi) : [];
  // Nothing out of order in the window, the 4 KiB before it and the bytes after: what it shows landed
  // after what those 4 KiB drew, and nothing after moves back onto it. The bytes farther back are not read.
  if (!drawOutOfOrder([...read.before, ...slices, ...after])) return masked;
  const from = Math.max(0, lo - FAR_CONTEXT);
  const before = more.before && from < lo ? (await store.read(sessionId, from, lo - from)).slices.filter((s) => s.end <= lo) : [];
  // Only CR, BS and LF moving the cursor, an LF on either side of the window: no far byte reaches its rows.
  if (rowsStayNear({ near: read, slices, before, after, more })) return masked;
  return maskBetween(redactor, before, slices, after);
}

/**
 * {@link maskSlices} with the context already read: `before` the (up to CONTEXT) bytes just before
 * `slices`, `after` those just after (a read that took them in the same store read as the window).
 * `options.assembled` false leaves out the pass for secrets the terminal assembles: only
 * bench/assembled-mask.ts does, to measure what that pass adds.
 */
export function maskBetween(
  redactor: Redactor,
  before: readonly OutputSlice[],
  slices: readonly OutputSlice[],
  after: readonly OutputSlice[],
  options: { readonly assembled?: boolean } = {},
): { slices: OutputSlice[]; count: number } {
  if (!redactor.enabled || slices.length === 0) return { slices: [...slices], count: 0 };
  const out = [...slices];
  let count = 0;
  const channels = new Set(slices.map((s) => s.channel));
  // Where each slice is (a window of one-byte records has a million: no search for each).
  const index = new Map(slices.map((s, i) => [s, i]));
  for (const channel of channels) {
    const mine = (list: readonly OutputSlice[]) => list.filter((s) => s.channel === channel);
    const pre = mine(before);
    const window = mine(slices);
    const all = [...pre, ...window, ...mine(after)];
    const bytes = joined(all.map((s) => s.bytes));
    const masked = redactor.bytes(bytes);
    const wStart = pre.reduce((n, s) => n + s.bytes.length, 0);
    const wEnd = wStart + window.reduce((n, s) => n + s.bytes.length, 0);
    // What the screen puts together from pieces each too short for a rule (./assembled.ts).
    const fresh = all[0]!.start === 0;
    const assembled =
      options.assembled === false
        ? { bytes: masked.bytes, count: 0 }
        : maskAssembled(redactor, { bytes, masked: masked.bytes, window: { start: wStart, end: wEnd }, fresh });
    if (assembled.bytes === bytes) continue;
    count += masked.ranges.filter((r) => r.start < wEnd && r.end > wStart).length + assembled.count;
    let at = wStart;
    for (const s of window) {
      out[index.get(s)!] = sliceWith(s, assembled.bytes.subarray(at, at + s.bytes.length));
      at += s.bytes.length;
    }
  }
  return { slices: out, count };
}

/**
 * `slice` holding `bytes` instead (the same offset, its end moved to fit): its fields copied by
 * name, because a store's slice may compute `timestamp` in a getter, which a spread drops.
 */
export const sliceWith = (slice: OutputSlice, bytes: Uint8Array): OutputSlice => ({
  channel: slice.channel,
  start: slice.start,
  end: slice.start + bytes.length,
  timestamp: slice.timestamp,
  bytes,
});

/** argv with secrets masked: each word, and the word after a flag named like a secret (`--password x`). */
export function maskArgv(redactor: Redactor, argv: readonly string[]): { argv: string[]; count: number } {
  if (!redactor.enabled) return { argv: [...argv], count: 0 };
  let count = 0;
  const curl = argv.some((word) => /(?:^|\/)curl$/.test(word));
  const out = argv.map((word, i) => {
    const previous = argv[i - 1];
    if (previous !== undefined && SECRET_FLAG.test(previous) && word.length >= 4 && !word.startsWith("-")) {
      count++;
      return "*".repeat(word.length);
    }
    // `curl -u bob:PW`, `--user bob:PW`, `curl -ubob:PW`: the rule reads the password with the flag (and curl) before it.
    const before =
      previous !== undefined && (USER_FLAG.test(previous) || (curl && /^-[uU]$/.test(previous)))
        ? "--user "
        : curl && /^-[uU]\S/.test(word)
          ? "curl "
          : "";
    const masked = redactor.text(before + word);
    count += masked.count;
    return masked.text.slice(before.length);
  });
  return { argv: out, count };
}

/** A flag whose value is `user:password`. */
const USER_FLAG = /^--(?:proxy-)?user$/;

/** A flag whose value is a secret: `--password`, `--token`, `--api-key`, `--client-secret` (not `-p`: too many meanings). */
const SECRET_FLAG = /^--?[A-Za-z0-9_-]*(?:passw(?:or)?d|passphrase|token|secret|api[_-]?key|access[_-]?key|credentials?)[A-Za-z0-9_-]*$/i;
