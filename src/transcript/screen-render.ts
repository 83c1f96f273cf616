/**
 * The screen view of a transcript: the last DEFAULT_SCREEN_WINDOW bytes of its range rendered at the
 * recorded size with every resize, from a point that needs no earlier state. A window that begins
 * inside a full-screen program is found by scanning back for the last alternate-screen switch
 * (64 windows at most, and only back to where the last read of the range found the state).
 */
import {
  alternateScreenAfter,
  DEFAULT_SCREEN_WINDOW,
  findRenderStart,
  renderScreen,
  type RenderStart,
  type ScreenRender,
  type TermSize,
} from "../views/screen.ts";
import { StoreCache } from "./store-cache.ts";
import { readWindow, type Transcript } from "./transcript.ts";

/** The size a session without a recorded one (a pipe session, or one recorded before sizes were) is rendered at. */
export const ASSUMED_SIZE: TermSize = { cols: 120, rows: 30 };
/** How many windows back from the rendered one the scan for an alternate-screen switch looks. */
const SCAN_WINDOWS = 64;
/** Longer than an alternate-screen switch ("\x1b[?1049h"): windows of the scan overlap by this much. */
const SWITCH_BYTES = 16;

export interface ScreenOfTranscript extends ScreenRender {
  /** The session recorded no size: rendered at {@link ASSUMED_SIZE}. */
  readonly sizeAssumed: boolean;
}

/**
 * Render the end of the range. `mask`: the window's bytes with their secrets masked, rendered
 * instead of the bytes as recorded (a token printed whole and then written over on its row leaves
 * a rest on the screen too short for a rule; its bytes masked, the screen shows stars there).
 * `offset`: where the bytes begin in output.bin.
 */
export async function renderTranscript(
  t: Transcript,
  mask?: (bytes: Uint8Array, offset: number) => Uint8Array,
): Promise<ScreenOfTranscript> {
  const { cols, rows } = t.info.meta;
  const size = cols && rows ? { cols, rows } : ASSUMED_SIZE;
  const resizes = (await t.store.events(t.sessionId)).filter((e) => e.type === "resize");
  const read = await readWindow(t, t.hi - DEFAULT_SCREEN_WINDOW, t.hi);
  const window = mask ? { offset: read.offset, bytes: mask(read.bytes, read.offset) } : read;
  const start: RenderStart =
    window.offset <= t.lo
      ? { offset: t.lo, alternate: false }
      : findRenderStart(window, { insideAlternate: await insideAlternate(t, window.offset) });
  // A session with no terminal wrote to pipes: its LFs reached no terminal driver that adds the CR.
  const render = await renderScreen({ window, size, resizes, start, newlineIsLF: !t.info.meta.tty_attached });
  return { ...render, sizeAssumed: size === ASSUMED_SIZE };
}

/** The alternate-screen state found at an offset of a session's range, kept so the next read scans only past it. */
interface Known {
  readonly startedAt: string;
  readonly at: number;
  readonly inside: boolean;
}

const known = new StoreCache<Known>();

/**
 * Whether a full-screen program holds the alternate screen at offset `at`, by the last switch
 * before it: scanned back SCAN_WINDOWS windows at most, and only back to where an earlier read of
 * the range found the state when that is nearer (a live session's screen is read again and again
 * as it grows).
 */
async function insideAlternate(t: Transcript, at: number): Promise<boolean> {
  const key = `${t.sessionId}:${t.lo}`;
  const before = known.get(t.store, key);
  const farthest = Math.max(t.lo, at - SCAN_WINDOWS * t.block);
  const usable = before !== undefined && before.startedAt === t.info.meta.started_at && before.at <= at && before.at >= farthest;
  // A switch cut by the known point was not seen then: look a few bytes before it.
  const floor = usable ? Math.max(farthest, before.at - SWITCH_BYTES) : farthest;
  const inside = (await lastSwitch(t, floor, at)) ?? (usable ? before.inside : false);
  known.set(t.store, key, { startedAt: t.info.meta.started_at, at, inside });
  return inside;
}

/** The state the last alternate-screen switch in [floor, at) leaves, or undefined when there is none. */
async function lastSwitch(t: Transcript, floor: number, at: number): Promise<boolean | undefined> {
  for (let end = at; end > floor; ) {
    // Overlap the blocks a little so a switch cut by a block boundary is still seen.
    const window = await readWindow(t, Math.max(floor, end - t.block), Math.min(at, end + SWITCH_BYTES));
    const after = alternateScreenAfter(window);
    if (after !== undefined) return after;
    end = window.offset;
  }
  return undefined;
}
