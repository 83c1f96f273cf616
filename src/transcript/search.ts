/**
 * One transcript searched: its text view streamed window by window through TextSearch (never the
 * whole transcript in memory), lines numbered as derun_read_text numbers them, and the matches as
 * grep shows them (`N:` a matching line, `N-` context). Long lines are cut around the match. A
 * regular expression's work on one line cannot be interrupted, but it is bounded (about a
 * millisecond, see views/_pattern.ts), so the clock is read between lines: the event loop gets its
 * turn every few milliseconds, and past the deadline the search stops and says how far it got.
 */
import type { DerunOutputChannel } from "../core/enums.ts";
import { TextSearch, type SearchMatch, type SearchPattern } from "../views/search.ts";
import type { TextLine } from "../views/text.ts";
import { subjectOf, subjectText, type Subject } from "./subject.ts";
import { SEP } from "./render.ts";
import { giveTurn, turnDue } from "./pace.ts";
import { candidateBatches } from "./search-stream.ts";
import { textBatches, type TextStreamOptions } from "./text-stream.ts";
import type { Transcript } from "./transcript.ts";

/** The pattern as search compiles it (the command line compiles it once, and colours with it: matchesIn, bounded as search is). */
export { compilePattern, matchesIn, type SearchPattern } from "../views/search.ts";

/** Characters shown of a matching line (around the match) and of a context line. */
const MATCH_LINE_CHARS = 400;
const CONTEXT_LINE_CHARS = 200;

export interface FoundLine {
  readonly line: number;
  readonly text: string;
}

export interface FoundMatch extends FoundLine {
  /** Where the match begins in the line's text, and what it matched. */
  readonly column: number;
  readonly match: string;
  /** The line's raw bytes: [start_cursor, end_cursor). */
  readonly start_cursor: string;
  readonly end_cursor: string;
  readonly before: readonly FoundLine[];
  readonly after: readonly FoundLine[];
}

export type Found = Subject & {
  readonly channel?: DerunOutputChannel;
  readonly lines_searched: number;
  readonly match_count: number;
  /** Lines longer than the pattern runs on, searched in their first `line_chars` characters only. */
  readonly long_lines?: number;
  readonly line_chars?: number;
  /** The deadline passed: the lines after `lines_searched` were not searched. */
  readonly stopped?: true;
  readonly matches: readonly FoundMatch[];
};

export interface SearchTranscriptOptions {
  readonly pattern: SearchPattern;
  readonly context: number;
  readonly maxMatches: number;
  readonly channel?: DerunOutputChannel;
  readonly signal?: AbortSignal;
  /** performance.now() past which the search stops (Infinity: never). */
  readonly deadline: number;
  /** See {@link TextStreamOptions.onWindow}. */
  readonly onWindow?: () => void;
  /** The lines that do not match (grep -v). */
  readonly invert?: boolean;
}

/** Lines between two looks at the clock (each may take up to about a millisecond), unless a line is long enough to take time on its own. */
const CLOCK_EVERY = 16;
const LONG_LINE = 256;

export async function searchTranscript(t: Transcript, options: SearchTranscriptOptions): Promise<Found> {
  const search = new TextSearch(options);
  let number = 1;
  let stopped = false;
  // The clock is read before a line, so "stopped" always means lines were left unsearched; the batch
  // of lines still open at the end comes last, and a search stopped before it never sees it.
  let long = false;
  let tested = 0;
  // With a required literal, the lines that cannot hold it are passed over as a count (search-stream.ts).
  const needle = options.invert ? undefined : options.pattern.needle;
  const batches = needle ? candidateBatches(t, needle, search.contextLines, options) : textBatches(t, options);
  scan: for await (const steps of batches) {
    for (const step of steps) {
      if (typeof step === "number") {
        search.skip(step);
        number += step;
        continue;
      }
      if (long || ++tested % CLOCK_EVERY === 0) {
        if (performance.now() > options.deadline) {
          stopped = true;
          break scan;
        }
        if (turnDue()) await giveTurn();
        if (options.signal?.aborted) break scan;
      }
      search.push(number++, step);
      long = step.text.length > LONG_LINE;
    }
    long = true; // a batch is a window's worth of work: look at the clock before the next one
  }
  // A cancelled call (or the server shutting down): what was found so far, marked as stopped.
  if (options.signal?.aborted) stopped = true;
  const result = search.result();
  return {
    ...subjectOf(t),
    ...(options.channel === undefined ? {} : { channel: options.channel }),
    lines_searched: result.linesSearched,
    match_count: result.matchCount,
    ...(result.longLines > 0 ? { long_lines: result.longLines, line_chars: options.pattern.lineChars } : {}),
    ...(stopped ? { stopped: true as const } : {}),
    matches: result.matches.map(found),
  };
}

const clip = (text: string, max: number, around = 0): string => {
  if (text.length <= max) return text;
  const from = Math.max(0, Math.min(around - max / 4, text.length - max));
  return `${from > 0 ? "…" : ""}${text.slice(from, from + max)}${from + max < text.length ? "…" : ""}`;
};

const context = (l: { number: number; line: TextLine }): FoundLine => ({ line: l.number, text: clip(l.line.text, CONTEXT_LINE_CHARS) });

const found = (m: SearchMatch): FoundMatch => ({
  line: m.number,
  text: clip(m.line.text, MATCH_LINE_CHARS, m.column),
  column: m.column,
  match: m.match,
  start_cursor: String(m.line.start),
  end_cursor: String(m.line.end),
  before: m.before.map(context),
  after: m.after.map(context),
});

/** A session's matches: a header line, then grep-style lines (`--` between groups that do not touch). */
export function renderFound(f: Found): string {
  const facts = [subjectText(f)];
  if (f.channel) facts.push(f.channel);
  facts.push(`${f.match_count} of ${f.lines_searched} lines match`);
  if (f.stopped) facts.push(`stopped at line ${f.lines_searched}: out of time`);
  if (f.long_lines) facts.push(`${f.long_lines} line${f.long_lines === 1 ? "" : "s"} longer than ${f.line_chars} characters searched in ${f.long_lines === 1 ? "its" : "their"} start only`);
  const out = [`== ${facts.join(SEP)}`];
  let last = 0;
  for (const m of f.matches) {
    const first = m.before[0]?.line ?? m.line;
    if (last > 0 && first > last + 1) out.push("--");
    for (const b of m.before) out.push(`${b.line}-${b.text}`);
    out.push(`${m.line}:${m.text}`);
    for (const a of m.after) out.push(`${a.line}-${a.text}`);
    last = m.after.at(-1)?.line ?? m.line;
  }
  return out.join("\n");
}
