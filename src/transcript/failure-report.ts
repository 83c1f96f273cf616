/**
 * The answer to "why did it fail?": the text view of a failed command streamed once, window by
 * window (never held whole), through the failure view (src/views/failure.ts), and the lines it
 * picked laid out within a character budget: how it ended, the failure lines with their context
 * and numbers, then the last lines, then what was left out and how to read it.
 */
import { lastOf, type FailurePicks, type ShownLine } from "../views/failure.ts";
import { durationOf } from "./failure-find.ts";
import { type FailurePassOptions, pickFailureLines } from "./failure-pass.ts";
import { redactedField } from "./masking.ts";
import { maskedFact, SEP } from "./render.ts";
import { subjectOf, subjectText, type Subject } from "./subject.ts";
import type { Transcript } from "./transcript.ts";

export const FAILURE_DEFAULT_MAX_CHARS = 4000;

export type FailureReport = Subject & {
  readonly duration_ms: number | null;
  /** Lines of the text view (the numbering derun_read_text view "text" uses). */
  readonly total_lines: number;
  /** Lines before this one came before the last clear of the screen (earlier runs of a watch mode). */
  readonly from_line: number;
  readonly failure_lines: number;
  /** The answer's lines after its header: failure lines (`N:`), context and last lines (`N-`). */
  readonly lines: readonly string[];
  /** What the lines leave out, in a sentence (absent when nothing is). */
  readonly left_out?: string;
  /** Secrets masked in the answer: in the command lines and directory, and in the lines shown (absent: none). */
  readonly redacted?: number;
};

/** How a reader reads lines `from`.. (`count` of them) of the same text: a tool call or a command. */
export type ReadHint = (t: Transcript, from: number, count: number) => string;

export const toolReadHint: ReadHint = (t, from, count) =>
  `derun_read_text session_id="${t.sessionId}"${t.command ? ` command=${t.command.number}` : ""} view="text" from_line=${from} ` +
  `head_lines=${count}`;

/** The lines the picks hold (each shown line by its first number), once each. */
function pickedLines(picks: FailurePicks): Set<number> {
  const lines = new Set<number>();
  for (const region of picks.regions) for (const l of region.lines) lines.add(l.line);
  for (const l of picks.tail) lines.add(l.line);
  return lines;
}

/** grep's marks: `N:` a failure line, `N-` another; a repeat is counted (blank lines just collapse). */
const format = (l: ShownLine): string =>
  `${l.line}${l.error ? ":" : "-"}${l.text}${l.repeated && l.text.trim() !== "" ? ` [${l.repeated + 1} times]` : ""}`;
const plural = (n: number, word: string): string => `${n.toLocaleString("en-US")} ${word}${n === 1 ? "" : "s"}`;

export async function failureReport(
  t: Transcript,
  maxChars: number,
  readHint: ReadHint = toolReadHint,
  signal?: AbortSignal,
  pass?: FailurePassOptions,
): Promise<FailureReport> {
  const masked = new Map<number, number>();
  const picks = await pickFailureLines(t, signal, masked, pass);
  const subject = subjectOf(t);
  const facts: HeaderFacts = {
    ...subject,
    duration_ms: durationOf(t),
    total_lines: picks.total,
    from_line: picks.from,
    failure_lines: picks.errorLines,
  };
  // The header's room: its count of masks is at most every mask of the lines picked (known once
  // they are laid out). Only those: the prefilter builds no other line, and masks none.
  let most = subject.redacted ?? 0;
  for (const line of pickedLines(picks)) most += masked.get(line) ?? 0;
  const lines = layout(picks, maxChars - headerOf({ ...facts, ...redactedField(most) }).length - 1);
  const leftOut = leftOutOf(t, picks, lines.shown, readHint);
  // A line shown once for its repeats shows its first one's masks.
  const shown = lines.shown.reduce((n, [from]) => n + (masked.get(from) ?? 0), subject.redacted ?? 0);
  return { ...facts, ...redactedField(shown), lines: lines.text, ...(leftOut ? { left_out: leftOut } : {}) };
}

const seconds = (ms: number): string =>
  ms < 1000
    ? `${ms} ms`
    : ms < 60000
      ? `${(ms / 1000).toFixed(1)} s`
      : `${Math.floor(ms / 60000)} min ${Math.round((ms % 60000) / 1000)} s`;

type HeaderFacts = Subject & Pick<FailureReport, "duration_ms" | "total_lines" | "from_line" | "failure_lines" | "redacted">;

function headerOf(r: HeaderFacts): string {
  const facts = [subjectText(r)];
  if (r.duration_ms !== null) facts.push(`ran ${seconds(r.duration_ms)}`);
  const scope =
    r.from_line > 1
      ? `lines ${r.from_line}-${r.total_lines} (after the last clear of the screen) of ${r.total_lines}`
      : plural(r.total_lines, "line");
  facts.push(
    r.failure_lines > 0
      ? `${plural(r.failure_lines, "failure line")} in ${scope}`
      : `no failure line recognised in ${scope}: its last lines`,
  );
  if (r.redacted) facts.push(maskedFact(r.redacted));
  return facts.join(SEP);
}

/** Characters kept for the note on what was left out. */
const NOTE = 400;
/** Of the rest, the share the last lines get when failure lines come first. */
const TAIL_SHARE = 0.35;

/** The lines within `budget` characters (each line counts its newline), and which view lines they show. */
function layout(picks: FailurePicks, budget: number): { text: string[]; shown: Array<[number, number]> } {
  const room = Math.max(0, budget - NOTE);
  const text: string[] = [];
  const shown: Array<[number, number]> = [];
  let used = 0;
  const add = (line: string): boolean => {
    if (used + line.length + 1 > room) return false;
    text.push(line);
    used += line.length + 1;
    return true;
  };
  const tailSize = (from: number) => picks.tail.filter((l) => lastOf(l) >= from).reduce((n, l) => n + format(l).length + 1, 0);
  // A short output is shown whole.
  if (picks.tail[0] && picks.tail[0].line <= picks.from && tailSize(picks.from) <= room) {
    for (const l of picks.tail) add(format(l));
    return { text, shown: picks.tail.map((l) => [l.line, lastOf(l)]) };
  }
  const tailRoom = picks.regions.length === 0 ? room : Math.min(tailSize(picks.from), Math.floor(room * TAIL_SHARE));
  let last = picks.from - 1;
  regions: for (const region of picks.regions) {
    if (used > 0 && !add("--")) break;
    for (const l of region.lines) {
      if (used + format(l).length + 1 > room - tailRoom || !add(format(l))) break regions;
      shown.push([l.line, lastOf(l)]);
      last = lastOf(l);
    }
    if (region.alike > 0)
      add(
        `   (${plural(region.alike, "more line")} like ${region.lines.find((l) => l.error)?.line ?? "these"}, the last at line ` +
          `${region.lastAlike})`,
      );
  }
  // The last lines not shown yet, as many as fit, newest kept.
  const tail = picks.tail.filter((l) => l.line > last);
  if (tail.length > 0) {
    const heading = `== last lines`;
    const fit: ShownLine[] = [];
    let size = heading.length + 1;
    for (let i = tail.length - 1; i >= 0; i--) {
      const n = format(tail[i]!).length + 1;
      if (used + size + n > room) break;
      fit.unshift(tail[i]!);
      size += n;
    }
    if (fit.length > 0) {
      if (text.length > 0) add(heading);
      for (const l of fit) {
        add(format(l));
        shown.push([l.line, lastOf(l)]);
      }
    }
  }
  return { text, shown };
}

/** The largest stretch of lines not shown, the failure lines not shown, and how to read them. */
function leftOutOf(t: Transcript, picks: FailurePicks, shown: Array<[number, number]>, readHint: ReadHint): string | undefined {
  const ranges = [...shown].sort((a, b) => a[0] - b[0]);
  let hidden = 0;
  let gap: [number, number] | undefined;
  let next = picks.from;
  for (const [from, to] of [...ranges, [picks.total + 1, picks.total + 1] as [number, number]]) {
    if (from > next) {
      hidden += from - next;
      if (!gap || from - next > gap[1] - gap[0] + 1) gap = [next, from - 1];
    }
    next = Math.max(next, to + 1);
  }
  const notes: string[] = [];
  if (picks.from > 1) notes.push(`lines 1-${picks.from - 1} came before the screen was last cleared`);
  const unshown =
    picks.moreErrors +
    picks.regions.reduce((n, r) => n + r.lines.filter((l) => l.error && !ranges.some(([a, b]) => l.line >= a && l.line <= b)).length, 0);
  if (unshown > 0)
    notes.push(
      `${plural(unshown, "more failure line")}${picks.moreErrorLines.length > 0 ? ` (from line ${picks.moreErrorLines[0]})` : ""}`,
    );
  if (hidden > 0 && gap)
    notes.push(
      `${plural(hidden, "line")} not shown, the most at ${gap[0]}-${gap[1]}: ${readHint(t, gap[0], Math.min(200, gap[1] - gap[0] + 1))}`,
    );
  if (notes.length === 0) return undefined;
  const note = `left out: ${notes.join("; ")}`;
  return note.length > NOTE ? `${note.slice(0, NOTE - 1)}…` : note;
}

/** Header, lines, note: the answer's text. */
export const renderFailure = (r: FailureReport): string => [headerOf(r), ...r.lines, ...(r.left_out ? [r.left_out] : [])].join("\n");
