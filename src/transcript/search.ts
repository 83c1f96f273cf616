/**
 * One transcript searched: its text view streamed window by window through TextSearch (never the
 * whole transcript in memory), lines numbered as derun_read_text numbers them, and the matches as
 * grep shows them (`N:` a matching line, `N-` context). Long lines are cut around the match. A
 * regular expression's work on one line cannot be interrupted, but it is bounded (about a
 * millisecond, see views/pattern/pattern.ts), so the clock is read between lines: the event loop gets its
 * turn every few milliseconds, and past the deadline the search stops and says how far it got.
 */
import type { DerunOutputChannel } from "../core/enums.ts";
import type { NumberedLine } from "../views/lines.ts";
import { TextSearch, type SearchMatch, type SearchPattern } from "../views/search.ts";
import type { TextLine } from "../views/text.ts";
import { subjectOf, subjectText, type Subject } from "./subject.ts";
import { maskedFact, SEP } from "./render.ts";
import { giveTurn, turnDue } from "./pace.ts";
import { candidateBatches } from "./search-stream.ts";
import { textBatchesAsRecorded } from "./text-stream-raw.ts";
import type { TextStreamOptions } from "./text-stream.ts";
import { LineMasking, maskText, redactedField, redactorFor, type MaskedLine, type Redactor } from "./masking.ts";
import { KeyBlocks } from "./key-block.ts";
import { canMatchMask } from "./search-mask.ts";
import { maskMapOf } from "./mask-map.ts";
import { secretsIn } from "./mask-count.ts";
import { assembledFor } from "./assembled-text.ts";
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
  /** Secrets masked in the lines shown (absent: none). */
  readonly redacted?: number;
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
  // The masked text is searched. A line is masked before the pattern sees it when the pattern could
  // match a mask's `*`; otherwise (masks keep lengths) a masked line can match only where the line
  // as recorded does, so only those lines are masked and tested again, and searching costs what it did.
  const redactor = redactorFor(t.info.meta);
  // In derun mcp, the bytes a mask covers are read as `*` before anything is looked for: a guess
  // inside a secret costs what a miss costs (./mask-map.ts).
  const map = await maskMapOf(t, redactor, options.deadline, options.signal);
  if (map === "out of time") return notSearched(t, options);
  // A session with more masked ranges than a map holds: every line masked before it is tested.
  const masks = map === "full" ? undefined : map;
  const masking = new LineMasking(redactor);
  // grep -v selects the lines that do not match: that must be decided on the masked line too (a line
  // whose secret matched as recorded is selected once masked), so every line is masked first.
  const maskFirst = redactor.enabled && (map === "full" || options.invert === true || canMatchMask(options.pattern));
  const search = new TextSearch({
    ...options,
    ...(redactor.enabled && !maskFirst ? { shown: (line: TextLine) => masking.line(line) } : {}),
  });
  let number = 1;
  let stopped = false;
  // The clock is read before a line, so "stopped" always means lines were left unsearched; the batch
  // of lines still open at the end comes last, and a search stopped before it never sees it.
  let long = false;
  let tested = 0;
  // With a required literal, the lines that cannot hold it are passed over as a count (search-stream.ts);
  // not when a mask's `*` could match (the literal is looked for in the bytes as recorded).
  const needle = options.invert || maskFirst ? undefined : options.pattern.needle;
  // A mask map holds what the terminal assembles already; without one the bytes go through that pass (./assembled-text.ts).
  const read = masks ? { ...options, masks } : redactor.enabled ? { ...options, assembled: assembledFor(t, masking, redactor) } : options;
  const batches = needle ? candidateBatches(t, needle, search.contextLines, read) : textBatchesAsRecorded(t, read);
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
      search.push(number++, maskFirst ? masking.line(step) : step);
      long = step.text.length > LONG_LINE;
    }
    long = true; // a batch is a window's worth of work: look at the clock before the next one
  }
  // A cancelled call (or the server shutting down): what was found so far, marked as stopped.
  if (options.signal?.aborted) stopped = true;
  const result = search.result();
  const subject = subjectOf(t);
  const shown = { count: subject.redacted ?? 0 };
  // Lines masked one by one had no line before them to say they sit in a private key's block.
  const keys = redactor.enabled && !maskFirst ? new KeyBlocks(t) : undefined;
  const matches: FoundMatch[] = [];
  for (const match of result.matches) {
    const m = keys ? await maskKeyBody(match, keys) : match;
    matches.push(found(m, redactor, shown));
    // Lines read through the mask map came masked already: their masks are counted from the map,
    // less those their text's masking counted again (a private key's line, masked whole as text too).
    if (masks)
      for (const l of [...m.before, m, ...m.after]) {
        const asText = (l.line as MaskedLine).redacted ?? maskText(redactor, l.line.text).count;
        shown.count += Math.max(0, (await secretsIn(t, masks, l.line.start, l.line.end)) - asText);
      }
  }
  return {
    ...subject,
    ...(options.channel === undefined ? {} : { channel: options.channel }),
    lines_searched: result.linesSearched,
    match_count: result.matchCount,
    ...(result.longLines > 0 ? { long_lines: result.longLines, line_chars: options.pattern.lineChars } : {}),
    ...(stopped ? { stopped: true as const } : {}),
    ...redactedField(shown.count),
    matches,
  };
}

/** A search that ran out of time before it could look at a line (building the mask map: ./mask-map.ts). */
function notSearched(t: Transcript, options: SearchTranscriptOptions): Found {
  const subject = subjectOf(t);
  return {
    ...subject,
    ...(options.channel === undefined ? {} : { channel: options.channel }),
    lines_searched: 0,
    match_count: 0,
    stopped: true,
    matches: [],
  };
}

const clip = (text: string, max: number, around = 0): string => {
  if (text.length <= max) return text;
  const from = Math.max(0, Math.min(around - max / 4, text.length - max));
  return `${from > 0 ? "…" : ""}${text.slice(from, from + max)}${from + max < text.length ? "…" : ""}`;
};

/** A context line (pushed as recorded, unless it matched): masked, then cut. */
const context = (l: { number: number; line: TextLine }, redactor: Redactor, shown: { count: number }): FoundLine => {
  const masked =
    (l.line as { redacted?: number }).redacted === undefined
      ? maskText(redactor, l.line.text)
      : { text: l.line.text, count: (l.line as { redacted?: number }).redacted! };
  shown.count += masked.count;
  return { line: l.number, text: clip(masked.text, CONTEXT_LINE_CHARS) };
};

/** The match with each of its lines (and its context's) that is a private key's body line masked whole (./key-block.ts). */
async function maskKeyBody(m: SearchMatch, keys: KeyBlocks): Promise<SearchMatch> {
  const masked = async <L extends NumberedLine<TextLine>>(l: L): Promise<L> => {
    const text = await keys.masked(l.line.text, l.line.start);
    if (text === undefined) return l;
    return { ...l, line: { ...l.line, text, redacted: ((l.line as MaskedLine).redacted ?? 0) + 1, masked: true } };
  };
  const line = await masked(m);
  const before: NumberedLine<TextLine>[] = [];
  for (const l of m.before) before.push(await masked(l));
  const after: NumberedLine<TextLine>[] = [];
  for (const l of m.after) after.push(await masked(l));
  // What the pattern matched is shown too: masked with its line.
  const match = line === m ? m.match : line.line.text.slice(m.column, m.column + m.match.length);
  return { ...line, match, before, after };
}

const found = (m: SearchMatch, redactor: Redactor, shown: { count: number }): FoundMatch => {
  shown.count += (m.line as { redacted?: number }).redacted ?? 0;
  return {
    line: m.number,
    text: clip(m.line.text, MATCH_LINE_CHARS, m.column),
    column: m.column,
    match: m.match,
    start_cursor: String(m.line.start),
    end_cursor: String(m.line.end),
    before: m.before.map((l) => context(l, redactor, shown)),
    after: m.after.map((l) => context(l, redactor, shown)),
  };
};

/** A session's matches: a header line, then grep-style lines (`--` between groups that do not touch). */
export function renderFound(f: Found): string {
  const facts = [subjectText(f)];
  if (f.channel) facts.push(f.channel);
  facts.push(`${f.match_count} of ${f.lines_searched} lines match`);
  if (f.stopped) facts.push(`stopped at line ${f.lines_searched}: out of time`);
  if (f.redacted) facts.push(maskedFact(f.redacted));
  if (f.long_lines)
    facts.push(
      `${f.long_lines} line${f.long_lines === 1 ? "" : "s"} longer than ${f.line_chars} characters searched in ` +
        `${f.long_lines === 1 ? "its" : "their"} start only`,
    );
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
