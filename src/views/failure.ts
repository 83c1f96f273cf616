/**
 * The lines that explain a failure, picked from a text view streamed line by line (no I/O, bounded
 * memory whatever the length): the lines a failure rule matches (./failure-rules.ts) with their
 * context, merged where they touch, and the last lines. A line that repeats the one before it is
 * counted, not kept again; an error line like one already shown (same text but for its digits) is
 * counted against that one. A clear of the screen (a watch mode's next run) starts over: only what
 * came after the last clear is picked, unless nothing came after it.
 */
import { failureRuleOf } from "./failure-rules.ts";

/** A line as the answer shows it. */
export interface ShownLine {
  readonly line: number;
  readonly text: string;
  /** Matched a failure rule. */
  readonly error?: true;
  /** The same text followed this many more times (counted as they come). */
  repeated?: number;
}

/** Consecutive lines around one or more failure lines. */
export interface Region {
  readonly lines: ShownLine[];
  /** Failure lines like one of this region's, seen later: how many, and the last one's number. */
  alike: number;
  lastAlike: number;
}

export interface FailurePicks {
  /** Lines seen in all (the view's numbering: line 1 is the first). */
  readonly total: number;
  /** The first line picked from: after the last clear of the screen (1 when none). */
  readonly from: number;
  /** Lines a failure rule matched, after `from`. */
  readonly errorLines: number;
  readonly regions: readonly Region[];
  /** Failure lines past the regions kept: how many, and the first few of their numbers. */
  readonly moreErrors: number;
  readonly moreErrorLines: readonly number[];
  /** The last lines, oldest first. */
  readonly tail: readonly ShownLine[];
}

export interface FailurePickOptions {
  /** Regions kept at most (those first in the output). */
  readonly maxRegions?: number;
  /** Last lines kept. */
  readonly tailLines?: number;
  /** Characters kept of a line. */
  readonly lineChars?: number;
}

const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
/** Error lines that differ only in numbers (times, counts, addresses) are alike. */
const alikeKey = (text: string): string => text.replace(/\d+/g, "#").trim();

interface Segment {
  from: number;
  errorLines: number;
  regions: Region[];
  /** The region still taking its after-context, and how many more lines it takes. */
  open: Region | undefined;
  afterLeft: number;
  moreErrors: number;
  moreErrorLines: number[];
  keys: Map<string, Region>;
  tail: ShownLine[];
}

const segmentAt = (from: number): Segment => ({
  from,
  errorLines: 0,
  regions: [],
  open: undefined,
  afterLeft: 0,
  moreErrors: 0,
  moreErrorLines: [],
  keys: new Map(),
  tail: [],
});

/** The last line a shown line stands for (itself and its repeats). */
export const lastOf = (l: ShownLine): number => l.line + (l.repeated ?? 0);

export class FailureLines {
  readonly #maxRegions: number;
  readonly #tailLines: number;
  readonly #lineChars: number;
  #number = 0;
  #segment = segmentAt(1);
  /** The segment before the last clear, kept in case nothing comes after it. */
  #previous: Segment | undefined;
  /** The last few lines (before-context), newest last; shared with the tail and regions, so a repeat counts in all. */
  #recent: ShownLine[] = [];
  /** The last line shown is neither a failure line nor in a region: lines that repeat it change nothing kept for good. */
  #settled = true;
  /**
   * Lines shown since the last skip (see {@link skip}), until there are enough that none of the
   * lines skipped can be in what is kept (-1: no skip since they were).
   */
  #sinceSkip = -1;
  #sure = true;

  constructor(options: FailurePickOptions = {}) {
    this.#maxRegions = options.maxRegions ?? 24;
    this.#tailLines = options.tailLines ?? 40;
    this.#lineChars = options.lineChars ?? 300;
  }

  /**
   * Whether {@link skip} may stand for the lines that come next: no region takes after-context, and
   * the last line shown is neither a failure line nor a region's (a skipped line that repeats it
   * would have counted there).
   */
  canSkip(): boolean {
    return this.#segment.open === undefined && this.#settled;
  }

  /**
   * `count` lines that no rule matches (the prefilter found none of the rules' words in them), not
   * looked at. They are counted; the line after them starts afresh, since whether it repeats the
   * last of them is not known. That is the answer of the whole pass once the lines after them hold
   * more distinct lines than the tail keeps, before a failure line, a clear or the end: else
   * {@link sure} turns false, and the caller takes the whole pass instead.
   */
  skip(count: number): void {
    if (count <= 0) return;
    if (!this.canSkip()) this.#sure = false;
    this.#number += count;
    this.#recent = [];
    this.#sinceSkip = 0;
  }

  /** Whether the lines skipped left the answer as the whole pass gives it (see {@link skip}). */
  get sure(): boolean {
    return this.#sure;
  }

  /** Something the lines before it decide (a failure line, a clear, the end) comes while a skip's lines may still count. */
  #decides(): void {
    if (this.#sinceSkip >= 0 && this.#sinceSkip <= this.#tailLines) this.#sure = false;
  }

  /** The screen was cleared: the lines that follow start over. */
  clear(): void {
    this.#decides();
    this.#settled = true;
    if (this.#segment.tail.length > 0) this.#previous = this.#segment;
    this.#segment = segmentAt(this.#number + 1);
    this.#recent = [];
  }

  /** The next line of the view. */
  push(text: string): void {
    const number = ++this.#number;
    const s = this.#segment;
    const clipped = clip(text, this.#lineChars);
    const last = this.#recent.at(-1);
    if (last && last.text === clipped && lastOf(last) === number - 1) {
      last.repeated = (last.repeated ?? 0) + 1;
      if (last.error) s.errorLines++;
      return;
    }
    const rule = failureRuleOf(text);
    const shown: ShownLine = rule ? { line: number, text: clipped, error: true } : { line: number, text: clipped };
    this.#settled = !rule && !s.open;
    if (rule) {
      this.#decides();
      this.#error(s, shown, rule.before, rule.after);
    } else if (s.open) {
      s.open.lines.push(shown);
      if (--s.afterLeft <= 0) s.open = undefined;
    }
    if (this.#sinceSkip >= 0 && ++this.#sinceSkip > this.#tailLines) this.#sinceSkip = -1;
    keep(s.tail, shown, this.#tailLines);
    keep(this.#recent, shown, 4);
  }

  #error(s: Segment, line: ShownLine, before: number, after: number): void {
    s.errorLines++;
    if (s.open) {
      // Within the open region's after-context: the region grows.
      s.open.lines.push(line);
      s.afterLeft = Math.max(s.afterLeft - 1, after);
      if (s.afterLeft <= 0) s.open = undefined;
      return;
    }
    const key = alikeKey(line.text);
    const like = s.keys.get(key);
    if (like) {
      like.alike++;
      like.lastAlike = line.line;
      return;
    }
    if (s.regions.length >= this.#maxRegions) {
      s.moreErrors++;
      if (s.moreErrorLines.length < 5) s.moreErrorLines.push(line.line);
      return;
    }
    const previous = s.regions.at(-1);
    const shownTo = previous ? lastOf(previous.lines.at(-1)!) : 0;
    const context = this.#recent.filter((l) => l.line >= line.line - before && l.line > shownTo);
    const lines = [...context, line];
    let region: Region;
    // Touching the region before: one region.
    if (previous && shownTo + 1 >= lines[0]!.line) {
      previous.lines.push(...lines);
      region = previous;
    } else s.regions.push((region = { lines, alike: 0, lastAlike: 0 }));
    s.keys.set(key, region);
    s.open = after > 0 ? region : undefined;
    s.afterLeft = after;
  }

  result(): FailurePicks {
    this.#decides();
    const s = this.#segment.tail.length > 0 || !this.#previous ? this.#segment : this.#previous;
    return {
      total: this.#number,
      from: s.from,
      errorLines: s.errorLines,
      regions: s.regions,
      moreErrors: s.moreErrors,
      moreErrorLines: s.moreErrorLines,
      tail: s.tail,
    };
  }
}

function keep(ring: ShownLine[], line: ShownLine, max: number): void {
  ring.push(line);
  if (ring.length > max) ring.shift();
}
