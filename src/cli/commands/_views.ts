/**
 * The views `cat` and `tail` print, each read by the helpers the queries answer with (no second
 * reading or rendering here). text: escape codes removed and redraws collapsed, streamed window by
 * window; screen: the terminal at the end, rendered from a bounded window; raw: the recorded bytes,
 * exactly (colours replay on a terminal).
 */
import type { DerunOutputChannel } from "../../core/enums.ts";
import {
  MemoryBound,
  screenLines,
  type ReadTextLines,
  textBatches,
  gapsBetween,
  gapNotice,
  openTranscript,
  oneStreamReason,
  withoutPromptFiller,
  type CommandSelector,
  type Transcript,
  rawOutput,
} from "../../transcript/index.ts";
import type { Reader } from "../reader.ts";
import { ui, writeOut } from "../ui.ts";
import { usageError } from "../usage.ts";

export const VIEWS = ["text", "screen", "raw"] as const;
export type View = (typeof VIEWS)[number];
/** What `cat` and `tail` print without --view. */
export const DEFAULT_VIEW: View = "text";

export const VIEW_FLAG_HELP =
  "text: what was printed, escape codes removed and redraws collapsed (the default); screen: the terminal at the end; raw: the " +
  "exact bytes.";

/** No line budget: the command line prints every line asked for. */
export const ALL = Number.MAX_SAFE_INTEGER;

/** Lines to stdout, in writes of about 64 KiB (one write per line would cost more than the view). */
export class LineOut {
  private pending: string[] = [];
  private size = 0;

  lines(lines: Iterable<string>): void {
    for (const line of lines) {
      this.pending.push(line, "\n");
      this.size += line.length + 1;
      if (this.size >= 1 << 16) this.flush();
    }
  }

  flush(): void {
    if (this.size === 0) return;
    writeOut(this.pending.join(""));
    [this.pending, this.size] = [[], 0];
  }
}

/** The session (or one of its commands) a `cat` or `tail` reads, and the view and channel asked for. */
export async function openTarget(
  reader: Reader,
  ref: string,
  view: View,
  channel: DerunOutputChannel | undefined,
  command: CommandSelector | undefined,
): Promise<Transcript> {
  const opened = await openTranscript(reader.store, await reader.session(ref), command);
  const t = view === "text" ? await withoutPromptFiller(opened) : opened;
  if (channel === undefined) return t;
  if (view === "screen") throw usageError("--channel applies to --view text or raw (a screen shows every stream)");
  refuseOneStream(t, channel);
  return t;
}

/** A session whose output is one stream has no stream of its own for `channel`: said, not an empty answer. */
export function refuseOneStream(t: Transcript, channel: DerunOutputChannel): void {
  const reason = oneStreamReason(t, channel);
  if (reason !== undefined) throw usageError(`${reason}, without --channel`);
}

/** All the screen's lines, or its last ones. */
export type ScreenRange = { readonly head: number } | { readonly tail: number };

/** The screen's lines of `range`; says on stderr when the render could not reach back as far as that. */
export async function screenOf(t: Transcript, range: ScreenRange): Promise<ReadTextLines> {
  const screen = await screenLines(t, range, ALL);
  const from = Number(screen.rendered_from);
  const wanted = "tail" in range ? range.tail : Number.POSITIVE_INFINITY;
  if (from > t.lo && screen.total_lines < wanted) {
    ui.info(
      `the screen is rendered from byte ${from - t.lo} of ${t.hi - t.lo}${t.command ? ` of command ${t.command.number}` : ""}: what ` +
        `came before is not drawn`,
    );
  }
  return screen;
}

/** `cat`: the whole range in `view`. */
export async function printAll(reader: Reader, t: Transcript, view: View, channel?: DerunOutputChannel): Promise<void> {
  if (view === "raw") {
    // The whole session reads on to what is committed by the time it gets there, as cat(1) would.
    const range = t.command ? { from: t.lo, to: t.hi } : {};
    for await (const slice of rawOutput(reader.store, t.sessionId, { ...range, channel })) writeOut(slice.bytes);
    return;
  }
  const out = new LineOut();
  if (view === "screen") out.lines((await screenOf(t, { head: ALL })).lines);
  else {
    const memory = new MemoryBound();
    // Where output was kept out of the transcript (derun pause, ignore rules), a line says so, before
    // the line its place falls in (a gap within a line is said before that line).
    const gaps = await gapsBetween(reader.store, t.sessionId, t.lo, t.hi, true);
    let next = 0;
    for await (const lines of textBatches(t, { channel, onWindow: () => memory.check() }))
      for (const line of lines) {
        while (next < gaps.length && gaps[next]!.offset < line.end) out.lines([gapNotice(gaps[next++]!)]);
        out.lines([line.text]);
      }
    out.lines(gaps.slice(next).map(gapNotice));
  }
  out.flush();
}
