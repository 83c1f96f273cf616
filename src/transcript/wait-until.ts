/**
 * derun_wait_output with `until`: the text view of the output past the cursor, line by line as it is
 * committed, until a line matches the pattern. The line still being written (a prompt, a progress
 * line) is tested as it stands each time new bytes are committed, up to what may be a piece of a
 * secret still waiting for its rest (./live-hold.ts): that piece, and all after it, are tested once
 * the rest came or the hold ended. Only committed bytes are read, so
 * the answer never comes before the matching line is on disk. The line's text (and the match) are
 * clipped to max_bytes; the chunk's cursors still span the whole line.
 *
 * The clock is read between lines (the pattern's work on one line is bounded, views/pattern/pattern.ts):
 * the event loop gets its turn every few milliseconds, and at timeout_ms the wait answers with no
 * match and a cursor where the scan stopped (at a line's start), from which the next wait goes on.
 */
import { isLiveState, type Store } from "../core/store.ts";
import { matchLine, type SearchPattern } from "../views/search.ts";
import { TextView, type TextLine } from "../views/text.ts";
import { readResult, withRedacted, type ReadOutputResult } from "./output.ts";
import { AssembledText } from "./assembled-text.ts";
import { LineMasking, redactorOf } from "./masking.ts";
import { holdLive, maskWithin } from "./live-hold.ts";
import { DEFAULT_LIMITS } from "../core/tool.ts";
import { giveTurn, turnDue } from "./pace.ts";
import { clipUtf8 } from "./utf8.ts";

/** derun_wait_output's result: a read, and how the wait went. */
export interface WaitResult extends ReadOutputResult {
  /** With `until`: what the pattern matched, when it did; the line is the answer's one chunk. */
  readonly match?: string;
  readonly timed_out: boolean;
  readonly waited_ms: number;
}

/** Lines tested between two looks at the clock, unless a line is long enough to take time on its own. */
const CLOCK_EVERY = 16;
const LONG_LINE = 256;

export async function waitUntil(
  store: Store,
  sessionId: string,
  cursor: number,
  pattern: SearchPattern,
  timeoutMs: number,
  maxBytes: number,
  signal: AbortSignal,
): Promise<WaitResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const view = new TextView();
  // Lines are masked before they are tested: `until` sees what the answer would show.
  const redactor = await redactorOf(store, sessionId);
  const masking = new LineMasking(redactor);
  // What the terminal assembles is masked in the bytes before the view (./assembled-text.ts).
  const assembled = new AssembledText(store, sessionId, redactor, masking);
  const tested = new Map<string, string>(); // an open line's text when last tested, per channel
  let scanned = cursor;
  /** The time of the record that completed (or last extended) the line being tested. */
  let timestamp = "";
  const answer = (
    end: number,
    committed: number,
    state: ReadOutputResult["session_state"],
    line?: TextLine,
    match?: string,
  ): WaitResult => {
    const chunk = line && {
      channel: line.channel,
      start_cursor: String(line.start),
      end_cursor: String(line.end),
      timestamp,
      data: clipUtf8(line.text, maxBytes),
    };
    return {
      ...withRedacted(readResult(sessionId, chunk ? [chunk] : [], end, end === committed, state), line ? masking.count - before : 0),
      ...(match === undefined ? {} : { match: clipUtf8(match, maxBytes) }),
      timed_out: line === undefined && isLiveState(state),
      waited_ms: elapsed(),
    };
  };
  let before = 0;
  const test = (line: TextLine) => matchLine(pattern, line.text)?.text;
  let count = 0;
  for (;;) {
    const { read, held, readEnd } = await readHeld(store, sessionId, scanned);
    scanned = Math.max(scanned, Math.min(readEnd, read.output_bytes));
    for (const slice of await assembled.slices(held.slices)) {
      timestamp = slice.timestamp;
      const lines = view.write(slice.channel, slice.bytes, slice.start);
      for (let k = 0; k < lines.length; k++) {
        before = masking.count;
        const line = masking.line(lines[k]!);
        tested.delete(line.channel);
        const match = test(line);
        if (match !== undefined) return { ...answer(line.end, read.output_bytes, read.state, line, match), timed_out: false };
        if (++count % CLOCK_EVERY !== 0 && line.text.length <= LONG_LINE) continue;
        if (elapsed() >= timeoutMs || signal.aborted) {
          // Out of time inside the committed bytes: go on next time from the first line not yet tested.
          const untested = [...lines.slice(k + 1), ...view.partials()].reduce((at, l) => Math.min(at, l.start), line.end);
          return { ...answer(untested, read.output_bytes, read.state), timed_out: true };
        }
        if (turnDue()) await giveTurn();
      }
    }
    if (scanned < read.output_bytes && held.heldMs === 0 && !signal.aborted && elapsed() < timeoutMs) continue; // more committed: read on
    for (const raw of view.partials()) {
      before = masking.count;
      const line = masking.line(raw);
      if (tested.get(line.channel) === line.text) continue;
      tested.set(line.channel, line.text);
      const match = test(line);
      if (match !== undefined) return { ...answer(scanned, read.output_bytes, read.state, line, match), timed_out: false };
    }
    const remaining = timeoutMs - elapsed();
    if (!isLiveState(read.state) || remaining <= 0 || signal.aborted) return answer(scanned, read.output_bytes, read.state);
    // Held: woken by the next write, or when the hold ends.
    const past = held.heldMs > 0 ? read.output_bytes : scanned;
    await store.waitForOutput(sessionId, past, held.heldMs > 0 ? Math.min(remaining, held.heldMs) : remaining, signal);
  }
}

/**
 * The committed bytes from `cursor`, cut before a possible piece of a secret still waiting for its
 * rest (./live-hold.ts): neither it nor the line it is on is tested before its rest came or its hold
 * ended. Decided on bytes masked with nothing after them, as the open line is tested as it stands.
 */
async function readHeld(store: Store, sessionId: string, cursor: number) {
  const read = await store.read(sessionId, cursor, DEFAULT_LIMITS.windowBytes);
  const held = isLiveState(read.state) ? await holdLive(read.slices, maskWithin(store, sessionId)) : { slices: read.slices, heldMs: 0 };
  const readEnd = held.heldMs > 0 ? (held.slices.at(-1)?.end ?? cursor) : read.next_cursor;
  return { read, held, readEnd };
}
