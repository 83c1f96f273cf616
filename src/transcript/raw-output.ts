/**
 * The raw view read by streaming: a session's output bytes exactly as recorded, from an offset to
 * the end, optionally one channel's, optionally following a live session (woken by the store's
 * file-change wait, as derun_wait_output is) until it ends. And where the last N lines begin,
 * found by counting LF bytes backward from the end, one block at a time.
 */
import type { DerunOutputChannel } from "../core/enums.ts";
import { isLiveState, type OutputSlice, type Store } from "../core/store.ts";
import { nthLfBackward } from "../views/lines.ts";
import { joined } from "./joined.ts";
import { DEFAULT_LIMITS } from "../core/tool.ts";
import { holdLive } from "./live-hold.ts";
import { maskSlices, redactorOf } from "./masking.ts";

/** Bytes per store read: big enough to stream fast, small enough to hold. */
const BLOCK = DEFAULT_LIMITS.windowBytes;
/** How far back each tail step reads. */
const TAIL_BLOCK = 64 << 10;
/** One wait's cap while following; the loop waits again until the session ends. */
const FOLLOW_WAIT_MS = 60_000;
const LF = 0x0a;

export interface RawOutputOptions {
  /** First byte offset (default 0). */
  readonly from?: number;
  /** Stop before this offset (default: the end; not with `follow`). */
  readonly to?: number;
  /** Only this channel's bytes (pipe sessions: stdout or stderr). */
  readonly channel?: DerunOutputChannel;
  /** Keep going while the session is live, ending when it ends. */
  readonly follow?: boolean;
  readonly signal?: AbortSignal;
  /** Told how many secrets each read masked (a page says how many it hides). */
  readonly onMasked?: (count: number) => void;
}

/**
 * The recorded bytes from `from` on, in file order, as slices that follow index records. Ends at
 * the committed end (or, following, once the session has ended and every byte was yielded, or when
 * `signal` aborts). The slices' bytes are views valid until the next step.
 */
export async function* rawOutput(store: Store, sessionId: string, options: RawOutputOptions = {}): AsyncGenerator<OutputSlice> {
  const redactor = await redactorOf(store, sessionId);
  let cursor = options.from ?? 0;
  for (;;) {
    const want = options.to === undefined ? BLOCK : Math.min(BLOCK, options.to - cursor);
    if (want <= 0) return;
    const read = await store.read(sessionId, cursor, want);
    // A live session: a possible piece of a secret waits for its rest (./live-hold.ts): a follower
    // waits with it, a read to the end (`cat`, `export`) ends before it.
    const mask = (slices: readonly OutputSlice[]) => maskSlices(store, sessionId, redactor, slices);
    let whole: Awaited<ReturnType<typeof mask>> | undefined;
    const live = isLiveState(read.state) && (options.follow || read.next_cursor === read.output_bytes);
    const held = live
      ? await holdLive(read.slices, async (slices) => (whole = await mask(slices)).slices)
      : { slices: read.slices, heldMs: 0 };
    // Masked with the bytes around them (a secret across this read's edge is seen whole).
    const masked = held.heldMs === 0 && whole ? whole : await mask(held.slices);
    if (masked.count > 0) options.onMasked?.(masked.count);
    for (const slice of masked.slices) if (options.channel === undefined || slice.channel === options.channel) yield slice;
    cursor = held.heldMs > 0 ? (held.slices.at(-1)?.end ?? cursor) : read.next_cursor;
    if (cursor < read.output_bytes && held.heldMs === 0) continue;
    // At the end of what was committed when the state was read: a session that had ended then has no more.
    if (!options.follow || !isLiveState(read.state) || options.signal?.aborted) return;
    await store.waitForOutput(sessionId, read.output_bytes, held.heldMs || FOLLOW_WAIT_MS, options.signal);
  }
}

/**
 * The offset where the last `lines` lines of the output (or of its range `[lo, hi)`: one command's)
 * begin (a last line without its LF counts as one, as tail(1) counts): the range's start when there
 * are no more lines than that, its end for 0 lines. Reads backward from the end in blocks, never the
 * whole transcript.
 */
export async function rawTailStart(
  store: Store,
  sessionId: string,
  lines: number,
  range?: { readonly lo: number; readonly hi: number },
): Promise<number> {
  const info = await store.get(sessionId);
  const end = range?.hi ?? info.output_bytes;
  // A trimmed session's bytes begin where it kept them (trim.json).
  const lo = Math.min(end, Math.max(range?.lo ?? 0, info.kept_from ?? 0));
  if (lines <= 0 || end <= lo) return end;
  const last = (await store.read(sessionId, end - 1, 1)).slices[0]?.bytes[0];
  // The LF that ends the last line is not the boundary before it: look one LF further.
  let wanted = lines + (last === LF ? 1 : 0);
  for (let blockEnd = end; blockEnd > lo; ) {
    const start = Math.max(lo, blockEnd - TAIL_BLOCK);
    const read = await store.read(sessionId, start, blockEnd - start);
    const bytes = joined(read.slices.map((slice) => slice.bytes));
    const { found, at } = nthLfBackward({ offset: read.slices[0]?.start ?? start, bytes }, wanted);
    if (at !== undefined) return at + 1;
    wanted -= found;
    blockEnd = start;
  }
  return lo;
}
