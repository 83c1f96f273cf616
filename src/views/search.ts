/**
 * Search over the text view, streaming: lines are offered one by one (numbered as the view numbers
 * them), matching lines are kept with their context up to a cap, and all matching lines are
 * counted. Each line appears at most once across the matches and their context. A regular
 * expression runs on the first `maxMatchChars` characters of a line only (see `_pattern.ts` for
 * why); a literal runs on the whole line.
 */
import type { NumberedLine } from "./lines.ts";
import { compilePattern } from "./_pattern.ts";
import { TextView, type TextLine, type TextViewOptions } from "./text.ts";
import type { ChannelChunk } from "./window.ts";

export { backtrackingRisk, compilePattern, MAX_PATTERN_CHARS } from "./_pattern.ts";

export interface SearchOptions {
  readonly pattern: string;
  /** Match `pattern` as plain text. */
  readonly literal?: boolean;
  readonly ignoreCase?: boolean;
  /** Lines of context before and after each match. Default 0, at most 100. */
  readonly context?: number;
  /** Matches kept with their context. Default 100; later matching lines are only counted. */
  readonly maxMatches?: number;
  /** Characters of a line a regular expression runs on. Default 4096. */
  readonly maxMatchChars?: number;
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
  /** Lines longer than `maxMatchChars` that a regular expression saw only the start of. */
  readonly longLines: number;
}

interface OpenMatch extends SearchMatch {
  readonly after: NumberedLine<TextLine>[];
}

export class TextSearch {
  private readonly re: RegExp;
  private readonly literal: string | undefined;
  private readonly context: number;
  private readonly maxMatches: number;
  private readonly maxMatchChars: number;
  private readonly matches: OpenMatch[] = [];
  /** A ring of the last `context` lines not already shown (the next match's before-context), kept without allocating per line. */
  private readonly recentLines: TextLine[] = [];
  private readonly recentNumbers: number[] = [];
  private recentCount = 0;
  private recentNext = 0;
  private matchCount = 0;
  private linesSearched = 0;
  private longLines = 0;

  /** Throws DerunError "invalid_argument" for a pattern that is invalid or risks runaway backtracking. */
  constructor(options: SearchOptions) {
    this.re = compilePattern(options.pattern, options);
    this.literal = options.literal && !options.ignoreCase ? options.pattern : undefined;
    this.context = Math.max(0, Math.min(100, Math.floor(options.context ?? 0)));
    this.maxMatches = Math.max(0, Math.floor(options.maxMatches ?? 100));
    this.maxMatchChars = options.maxMatchChars ?? 4096;
  }

  /** True once the kept matches are complete (cap reached, last context filled): read on only to count. */
  get done(): boolean {
    const last = this.matches[this.matches.length - 1];
    return this.matches.length >= this.maxMatches && (!last || last.after.length >= this.context);
  }

  /** Offer line `number` of the view (numbers increase). */
  push(number: number, line: TextLine): void {
    this.linesSearched++;
    const found = this.find(line.text);
    const last = this.matches[this.matches.length - 1];
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
    if (this.literal !== undefined) {
      const index = text.indexOf(this.literal);
      return index < 0 ? undefined : { index, text: this.literal.slice(0, 200) };
    }
    if (text.length > this.maxMatchChars) {
      this.longLines++;
      text = text.slice(0, this.maxMatchChars);
    }
    const m = this.re.exec(text);
    return m ? { index: m.index, text: m[0].slice(0, 200) } : undefined;
  }
}

/**
 * Search chunks of one session in file order (all channels merged, or the chunks of one channel:
 * the numbering follows), lines numbered from `firstLine`; stops reading once matches are complete
 * unless `count` asks for the full match count.
 */
export function searchText(
  chunks: Iterable<ChannelChunk>,
  options: SearchOptions & TextViewOptions & { readonly firstLine?: number; readonly count?: boolean },
): SearchResult {
  const search = new TextSearch(options);
  const view = new TextView(options);
  let number = options.firstLine ?? 1;
  for (const chunk of chunks) {
    for (const line of view.write(chunk.channel, chunk.bytes, chunk.offset)) search.push(number++, line);
    if (search.done && !options.count) return search.result();
  }
  for (const line of view.partials()) search.push(number++, line);
  return search.result();
}
