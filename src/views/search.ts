/**
 * Search over the text view, streaming: lines are offered one by one (numbered as the view numbers
 * them), matching lines are kept with their context up to a cap, and all matching lines are
 * counted. Each line appears at most once across the matches and their context. The pattern is
 * compiled first (`_pattern.ts`): a regular expression runs on a bounded start of each line, a
 * literal on the whole line.
 */
import type { NumberedLine } from "./lines.ts";
import { matchLine, seenInPart, type SearchPattern } from "./pattern/pattern.ts";
import type { TextLine } from "./text.ts";

export { compilePattern, matchesIn, matchLine, MAX_PATTERN_CHARS, type PatternOptions, type SearchPattern } from "./pattern/pattern.ts";

export interface SearchOptions {
  readonly pattern: SearchPattern;
  /** Lines of context before and after each match. Default 0, at most 100. */
  readonly context?: number;
  /** Matches kept with their context. Default 100; later matching lines are only counted. */
  readonly maxMatches?: number;
  /** The lines that do not match are the matches (grep -v), whole (column 0, nothing matched). */
  readonly invert?: boolean;
  /**
   * The line as a reader is shown it (secrets masked), when that can differ: called on each line
   * that matches, which then matches only if what it returns does too (and is kept as returned).
   */
  readonly shown?: (line: TextLine) => TextLine;
}

export interface SearchMatch extends NumberedLine<TextLine> {
  /** Where the first match begins in the line's text, and what it matched (at most 200 characters). */
  readonly column: number;
  readonly match: string;
  readonly before: readonly NumberedLine<TextLine>[];
  readonly after: readonly NumberedLine<TextLine>[];
}

export interface SearchResult {
  readonly matches: readonly SearchMatch[];
  /** Matching lines, kept or not. */
  readonly matchCount: number;
  /** More lines matched than were kept. */
  readonly truncated: boolean;
  readonly linesSearched: number;
  /** Lines longer than the pattern runs on (`SearchPattern.lineChars`): searched in their start only. */
  readonly longLines: number;
}

interface OpenMatch extends SearchMatch {
  readonly after: NumberedLine<TextLine>[];
}

export class TextSearch {
  private readonly pattern: SearchPattern;
  private readonly context: number;
  private readonly maxMatches: number;
  private readonly invert: boolean;
  private readonly shown: ((line: TextLine) => TextLine) | undefined;
  private readonly matches: OpenMatch[] = [];
  /** A ring of the last `context` lines not already shown (the next match's before-context), kept without allocating per line. */
  private readonly recentLines: TextLine[] = [];
  private readonly recentNumbers: number[] = [];
  private recentCount = 0;
  private recentNext = 0;
  private matchCount = 0;
  private linesSearched = 0;
  private longLines = 0;
  /** The last match still takes the lines after it as context (no line was skipped since). */
  private afterOpen = false;

  constructor(options: SearchOptions) {
    this.pattern = options.pattern;
    this.context = Math.max(0, Math.min(100, Math.floor(options.context ?? 0)));
    this.maxMatches = Math.max(0, Math.floor(options.maxMatches ?? 100));
    this.invert = options.invert === true;
    this.shown = options.shown;
  }

  /** Lines of context kept before and after each match. */
  get contextLines(): number {
    return this.context;
  }

  /** Offer line `number` of the view (numbers increase). */
  push(number: number, offered: TextLine): void {
    this.linesSearched++;
    let line = offered;
    let found = this.find(line.text);
    // The line as a reader sees it decides: a masked line matches only if its masked text does.
    if (found && this.shown && (line = this.shown(offered)) !== offered) found = this.test(line.text);
    const last = this.afterOpen ? this.matches[this.matches.length - 1] : undefined;
    if (!found) {
      if (last && last.after.length < this.context) last.after.push({ number, line });
      else if (this.context > 0) {
        this.recentLines[this.recentNext] = line;
        this.recentNumbers[this.recentNext] = number;
        this.recentNext = (this.recentNext + 1) % this.context;
        this.recentCount = Math.min(this.recentCount + 1, this.context);
      }
      return;
    }
    this.matchCount++;
    if (this.matches.length >= this.maxMatches) {
      if (last && last.after.length < this.context) last.after.push({ number, line });
      return;
    }
    this.matches.push({ number, line, column: found.index, match: found.text, before: this.takeRecent(), after: [] });
    this.afterOpen = true;
  }

  /**
   * `count` lines passed over, known to hold no match (search's literal shortcut): counted as
   * searched; the lines around them that context needs were offered with push.
   */
  skip(count: number): void {
    if (count <= 0) return;
    this.linesSearched += count;
    this.recentCount = 0;
    this.afterOpen = false;
  }

  /** The ring's lines, oldest first; empties it. */
  private takeRecent(): NumberedLine<TextLine>[] {
    const out: NumberedLine<TextLine>[] = [];
    for (let k = this.recentCount; k > 0; k--) {
      const at = (this.recentNext - k + this.context) % this.context;
      out.push({ number: this.recentNumbers[at]!, line: this.recentLines[at]! });
    }
    this.recentCount = 0;
    return out;
  }

  result(): SearchResult {
    const { matches, matchCount, linesSearched, longLines } = this;
    return { matches, matchCount, truncated: matchCount > matches.length, linesSearched, longLines };
  }

  private find(text: string): { index: number; text: string } | undefined {
    if (seenInPart(this.pattern, text)) this.longLines++;
    return this.test(text);
  }

  /** Whether `text` is a match (grep -v: whether it is not), without counting it as a line seen. */
  private test(text: string): { index: number; text: string } | undefined {
    const found = matchLine(this.pattern, text);
    if (!this.invert) return found;
    return found ? undefined : { index: 0, text: "" };
  }
}
