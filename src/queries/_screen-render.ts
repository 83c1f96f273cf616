/**
 * The screen view of a transcript: the last DEFAULT_SCREEN_WINDOW bytes of its range rendered at the
 * recorded size with every resize, from a point that needs no earlier state. A window that begins
 * inside a full-screen program is found by scanning back for the last alternate-screen switch.
 */
import { alternateScreenAfter, DEFAULT_SCREEN_WINDOW, findRenderStart, renderScreen, type RenderStart, type ScreenRender, type TermSize } from "../views/screen.ts";
import { BLOCK, readWindow, type Transcript } from "./_transcript.ts";

/** The size a session without a recorded one (a pipe session, or one recorded before sizes were) is rendered at. */
export const ASSUMED_SIZE: TermSize = { cols: 120, rows: 30 };
/** How far back from the window the scan for an alternate-screen switch looks. */
const ALTERNATE_SCAN = 64 * BLOCK;

export interface ScreenOfTranscript extends ScreenRender {
  /** The session recorded no size: rendered at {@link ASSUMED_SIZE}. */
  readonly sizeAssumed: boolean;
}

/** Render the end of the range. */
export async function renderTranscript(t: Transcript): Promise<ScreenOfTranscript> {
  const { cols, rows } = t.info.meta;
  const size = cols && rows ? { cols, rows } : ASSUMED_SIZE;
  const resizes = (await t.store.events(t.sessionId)).filter((e) => e.type === "resize");
  const window = await readWindow(t, t.hi - DEFAULT_SCREEN_WINDOW, t.hi);
  const start: RenderStart =
    window.offset <= t.lo ? { offset: t.lo, alternate: false } : findRenderStart(window, { insideAlternate: await insideAlternate(t, window.offset) });
  const render = await renderScreen({ window, size, resizes, start });
  return { ...render, sizeAssumed: size === ASSUMED_SIZE };
}

/** Whether a full-screen program holds the alternate screen at offset `at`, by the last switch before it. */
async function insideAlternate(t: Transcript, at: number): Promise<boolean> {
  const floor = Math.max(t.lo, at - ALTERNATE_SCAN);
  for (let end = at; end > floor; ) {
    // Overlap the blocks a little so a switch cut by a block boundary is still seen.
    const window = await readWindow(t, Math.max(floor, end - BLOCK), Math.min(at, end + 16));
    const after = alternateScreenAfter(window);
    if (after !== undefined) return after;
    end = window.offset;
  }
  return false;
}
