/**
 * How `derun grep` prints what each session's search found, as its flags ask: the matching lines
 * (./_grep-lines.ts), `-l` the ids, `-c` the counts, `-o` the matched parts, or, for `--json`, the
 * finds kept for derun_search_output's answer. It counts the matches on the way, for the exit code
 * and the "N of M shown" line.
 */
import { SCHEMA_VERSION } from "../../core/enums.ts";
import { matchesIn, type Found, type SearchPattern, type SessionsSearched } from "../../transcript/index.ts";
import type { SearchOutputResult } from "../../tools/search-output.ts";
import { paint } from "../paint.ts";
import { GrepPrinter } from "./_grep-lines.ts";
import { LineOut } from "./_views.ts";

/** The flags that choose the format (grep's own names), as derun grep parsed them. */
export interface GrepFormatFlags {
  readonly json?: boolean;
  readonly "files-with-matches"?: boolean;
  readonly count?: boolean;
  readonly "only-matching"?: boolean;
  readonly "invert-match"?: boolean;
}

/** Prints each session's finds as the flags ask (lines, counts, ids, parts, or kept for --json), and counts them. */
export class GrepOutput {
  readonly out = new LineOut();
  readonly results: Found[] = [];
  matchCount = 0;
  remaining: number;
  readonly #values: GrepFormatFlags;
  readonly #named: boolean;
  readonly #prefixIds: boolean;
  readonly #colour: boolean;
  readonly #compiled: SearchPattern;
  readonly #printer: GrepPrinter;

  constructor(
    values: GrepFormatFlags,
    options: { named: boolean; prefixIds: boolean; colour: boolean; compiled: SearchPattern; context: number; max: number },
  ) {
    this.#values = values;
    this.#named = options.named;
    this.#prefixIds = options.prefixIds;
    this.#colour = options.colour;
    this.#compiled = options.compiled;
    this.remaining = options.max;
    const highlight = values["invert-match"] === true ? undefined : options.compiled;
    this.#printer = new GrepPrinter(this.out, {
      prefixIds: options.prefixIds,
      context: options.context,
      colour: options.colour,
      highlight,
    });
  }

  readonly show = (found: Found): void => {
    this.matchCount += found.match_count;
    this.remaining = Math.max(0, this.remaining - found.matches.length);
    const values = this.#values;
    if (values.json) {
      if (found.match_count > 0 || this.#named) this.results.push(found);
    } else if (values["files-with-matches"]) {
      if (found.match_count > 0) this.out.lines([paint(this.#colour, "magenta", found.session_id)]);
    } else if (values.count) {
      if (found.match_count > 0 || this.#named) this.out.lines([`${this.#idPrefix(found)}${found.match_count}`]);
    } else if (values["only-matching"]) this.#parts(found);
    else this.#printer.print(found);
  };

  #idPrefix(found: Found): string {
    return this.#prefixIds ? `${paint(this.#colour, "magenta", found.session_id)}${paint(this.#colour, "cyan", ":")}` : "";
  }

  #parts(found: Found): void {
    const colour = this.#colour;
    for (const m of found.matches) {
      const head = `${this.#idPrefix(found)}${paint(colour, "green", String(m.line))}${paint(colour, "cyan", ":")}`;
      const parts = matchesIn(this.#compiled, m.text);
      this.out.lines(parts.map((part) => head + paint(colour, "red", paint(colour, "bold", m.text.slice(part.index, part.end)))));
    }
  }
}

/**
 * derun_search_output's answer. As grep: several patterns, a line that matches any (the answer lists
 * them one per line, as grep -f reads them).
 */
export function jsonAnswer(
  pattern: string,
  searched: number,
  across: SessionsSearched | undefined,
  output: GrepOutput,
  shownCount: number,
) {
  return {
    schema_version: SCHEMA_VERSION,
    pattern,
    sessions_searched: searched,
    ...(across
      ? {
          sessions_total: across.sessions_total,
          ...(across.sessions_skipped > 0 ? { sessions_skipped: across.sessions_skipped, skipped: across.skipped } : {}),
        }
      : {}),
    match_count: output.matchCount,
    truncated: output.matchCount > shownCount,
    results: output.results,
  } satisfies SearchOutputResult;
}
