/**
 * The lines of a derun_read_text answer in either view, with the facts that say which lines they
 * are: their numbers in the view, how many it has, whether the budget cut some, and the raw byte
 * range they come from (for the screen, the range rendered).
 */
import type { DerunOutputChannel } from "../core/enums.ts";
import { selectLines, type LineRange } from "../views/lines.ts";
import { selectText } from "./text-select.ts";
import type { Transcript } from "./transcript.ts";
import { joinRanges, overwrittenScan } from "../views/overwritten-lines.ts";
import { maskAssembled } from "./assembled.ts";
import { mayMoveRows } from "../views/may-assemble.ts";
import { assembledOnLines, maskLines } from "./written-over.ts";
import { redactedField, redactorFor } from "./masking.ts";

export interface ReadTextLines {
  readonly view: "text" | "screen";
  readonly channel?: DerunOutputChannel;
  readonly total_lines: number;
  readonly first_line?: number;
  readonly last_line?: number;
  /** The budget (max_chars) left out lines that were asked for, or cut a line. */
  readonly truncated: boolean;
  /** The raw bytes the lines come from: [start_cursor, end_cursor) of the output. */
  readonly start_cursor: string;
  readonly end_cursor: string;
  /** Screen: the byte the render started from (everything before it is not drawn). */
  readonly rendered_from?: string;
  /** Screen: the terminal size at the end, "120x30" ("assumed" when the session recorded none). */
  readonly size?: string;
  /** Screen: the lines are the frame of a full-screen program still on screen at the end. */
  readonly alternate_screen?: boolean;
  /** Screen: the scrollback is full, so the first lines rendered may have scrolled out of it. */
  readonly scrolled_out?: boolean;
  readonly lines: readonly string[];
  /** Secrets masked in the lines (absent: none). */
  readonly redacted?: number;
}

export async function textLines(
  t: Transcript,
  range: LineRange,
  maxChars: number,
  channel?: DerunOutputChannel,
  signal?: AbortSignal,
): Promise<ReadTextLines> {
  const selection = await selectText(t, range, { maxChars, channel, signal });
  const { lines } = selection;
  const start = lines.reduce((min, l) => Math.min(min, l.line.start), t.hi);
  const end = lines.reduce((max, l) => Math.max(max, l.line.end), lines.length > 0 ? 0 : t.hi);
  return {
    view: "text",
    ...(channel === undefined ? {} : { channel }),
    total_lines: selection.total,
    ...(lines.length > 0 ? { first_line: lines[0]!.number, last_line: lines[lines.length - 1]!.number } : {}),
    truncated: selection.truncated || lines.some((l) => l.line.cut),
    start_cursor: String(start),
    end_cursor: String(end),
    lines: lines.map((l) => l.line.text),
    ...redactedField(selection.redacted),
  };
}

export async function screenLines(t: Transcript, range: LineRange, maxChars: number): Promise<ReadTextLines> {
  // The terminal emulator (@xterm/headless) loads with the first screen view: 10 MB resident that a
  // server which never renders a screen does not hold (docs/performance.md).
  const { renderTranscript } = await import("./screen-render.ts");
  const redactor = redactorFor(t.info.meta);
  // The bytes are masked before they are drawn, as a raw read masks them: a secret written over on
  // its row leaves no whole token on the screen, only its rest. The lines that may show such a rest
  // (overwrittenLines) as raw bytes (elsewhere the rows hold what was written and their masking
  // finds it), then replayed onto the grid (./assembled.ts), which looks at each row before an
  // overwrite destroys it: a token put together from pieces and then written over. All the bytes
  // when they may move to another row (the pieces may lie on other lines), as the text views do.
  // The rows no longer show what was masked so, and are counted by their runs of stars (starRuns).
  let hidden = 0;
  const render = await renderTranscript(t, (bytes, offset) => {
    if (!redactor.enabled) return bytes;
    const scan = overwrittenScan(bytes);
    const raw = maskLines(redactor, bytes, scan.lines, -1);
    const window = { start: 0, end: bytes.length };
    const grid = mayMoveRows(bytes)
      ? maskAssembled(redactor, { bytes, masked: raw.bytes, window, fresh: offset === 0 })
      : assembledOnLines(redactor, bytes, raw.bytes, joinRanges(scan.lines, scan.erased), window);
    hidden = raw.ranges.length + grid.at.length;
    return grid.bytes;
  });
  // Masked before the cut (a cut secret is not recognised); wrapped rows are already one line here.
  const state = { inKey: false };
  const counts: number[] = [];
  const masked = render.lines.map((line) => {
    const m = redactor.text(line, state);
    counts.push(m.count);
    return m.text;
  });
  const all = masked.map((line) => (line.length > maxChars ? line.slice(0, maxChars) : line));
  const selection = selectLines(all, range, { maxChars });
  const { lines } = selection;
  return {
    view: "screen",
    total_lines: all.length,
    ...(lines.length > 0 ? { first_line: lines[0]!.number, last_line: lines[lines.length - 1]!.number } : {}),
    // Only the lines answered: a long line left out by the range cut nothing of the answer.
    truncated: selection.truncated || lines.some((l) => render.lines[l.number - 1]!.length > maxChars),
    start_cursor: String(render.from),
    end_cursor: String(render.to),
    rendered_from: String(render.from),
    size: `${render.size.cols}x${render.size.rows}${render.sizeAssumed ? " assumed" : ""}`,
    ...(render.alternate ? { alternate_screen: true } : {}),
    ...(render.scrollbackFull ? { scrolled_out: true } : {}),
    lines: lines.map((l) => l.line),
    ...redactedField(
      lines.reduce((n, l) => n + counts[l.number - 1]!, 0) +
        starRuns(
          lines.map((l) => l.line),
          hidden,
        ),
    ),
  };
}

/**
 * How many of the `hidden` secrets masked in the bytes the screen's `lines` show: their runs of four
 * or more stars, at most `hidden` (a row's own stars, a password prompt's, are counted only when
 * the bytes had a secret).
 */
function starRuns(lines: readonly string[], hidden: number): number {
  if (hidden === 0) return 0;
  let runs = 0;
  for (const line of lines) runs += line.match(/\*{4,}/g)?.length ?? 0;
  return Math.min(runs, hidden);
}
