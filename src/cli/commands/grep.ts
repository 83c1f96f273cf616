/**
 * `derun grep <pattern> [<id>...]`: the text view of sessions (or of one command in each) searched
 * by the helper derun_search_output uses, printed with grep's conventions: `line:` a match (`id:line:`
 * when several sessions are searched), `line-` context, `--` between context groups; exit 0 when a
 * line matched, 1 when none did, 2 on an error (a bad pattern, a missing session). Without a
 * session, every session is searched, newest first. grep's reflex flags work: -n (line numbers are
 * always shown), -c, -l, -v, -w, -o, --color.
 */
import { SCHEMA_VERSION } from "../../core/enums.ts";
import {
  MemoryBound,
  keepMaskMaps,
  compilePattern,
  matchesIn,
  searchAllSessions,
  searchTranscript,
  sessionsSearchedText,
  type Found,
  openTranscript,
  type SearchPattern,
  type SessionsSearched,
} from "../../transcript/index.ts";
import { describeError } from "../../core/errors.ts";
import type { SearchOutputResult } from "../../tools/search-output.ts";
import { paint } from "../paint.ts";
import { exitWith, type CommandData, type ExitRequest } from "../command.ts";
import { parseFlags, positiveInteger, type FlagDefs } from "../flags.ts";
import { colourOn } from "../paint.ts";
import { openReader } from "../reader.ts";
import { STATE_ROOT_FLAG } from "../state-root.ts";
import { NO_REDACT_FLAG } from "../redact-flag.ts";
import { ui } from "../ui.ts";
import { shown, usageError } from "../usage.ts";
import { GrepPrinter } from "./_grep-lines.ts";
import { COMMAND_FLAG, commandSelector, SESSION_ARG } from "./_session-arg.ts";
import { LineOut, refuseOneStream } from "./_views.ts";

const DEFAULT_MAX = 1000;
const MAX_CONTEXT = 100;

export const args = {
  pattern: {
    type: "positional",
    description: "A regular expression (JavaScript syntax; -F: plain text), run on the first 4096 characters of each line.",
  },
  id: {
    ...SESSION_ARG,
    required: false,
    description: 'Sessions to search: ids, "last" or "last~N" (default: every session, newest first).',
  },
  "ignore-case": { type: "boolean", alias: "i", description: "Match upper and lower case alike." },
  "fixed-strings": { type: "boolean", alias: "F", description: "The pattern is plain text, not a regular expression." },
  regexp: {
    type: "string",
    alias: "e",
    valueHint: "pattern",
    multiple: true,
    dashValue: true,
    description:
      "The pattern, given as a flag (for one that starts with -); then every argument is a session. Several -e: a line matching any.",
  },
  context: {
    type: "string",
    alias: "C",
    valueHint: "n",
    description: `Lines of context before and after each match (default 0, at most ${MAX_CONTEXT}).`,
  },
  max: {
    type: "string",
    alias: "m",
    valueHint: "n",
    description: `Show at most this many matching lines in all (default ${DEFAULT_MAX}); every match is counted.`,
  },
  "line-number": { type: "boolean", alias: "n", description: "Accepted as grep takes it: line numbers are always shown." },
  count: { type: "boolean", alias: "c", description: "Print how many lines matched in each session (`id:count`), not the lines." },
  "files-with-matches": { type: "boolean", alias: "l", description: "Print only the ids of the sessions with a matching line." },
  "invert-match": { type: "boolean", alias: "v", description: "Select the lines that do not match." },
  "word-regexp": { type: "boolean", alias: "w", description: "Match only whole words (the pattern between \\b and \\b)." },
  "only-matching": {
    type: "boolean",
    alias: "o",
    description: "Print only the matched parts of a line, each on its own line (in the part of a long line shown).",
  },
  color: {
    type: "enum",
    options: ["auto", "always", "never"],
    valueHint: "when",
    description: "Colour the output: auto (on a terminal, unless NO_COLOR is set; the default), always, never.",
  },
  channel: {
    type: "enum",
    options: ["stdout", "stderr"],
    description: "Search only what the command wrote to this stream (pipe sessions).",
  },
  command: COMMAND_FLAG,
  json: { type: "boolean", description: "The derun_search_output answer (the same fields), as JSON." },
  "no-redact": NO_REDACT_FLAG,
  "state-root": STATE_ROOT_FLAG,
} as const satisfies FlagDefs;

export const usage = "<pattern> [<id>...] [options]";

export const examples = [
  'derun grep -i error                       # every session, newest first, "id:line:" before each match',
  "derun grep -l 'ECONNREFUSED'               # the sessions that printed it",
  "derun grep -c -w FAIL last                # how many lines of the newest session hold the word FAIL",
  "derun grep -C 2 'FAIL|✗' last             # the newest session, two lines around each match",
  "derun grep -F '[error]' build test        # two sessions, plain text",
  "derun grep --command last warning shell   # only the last command typed in a derun shell",
  "derun grep --channel stderr -i warn last  # only what it wrote to stderr (pipe sessions)",
  "derun grep -- -v last                     # a pattern that starts with - (or --regexp=-v)",
  "derun grep --max 5 --json TODO last       # for scripts: the MCP answer's fields",
];

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

type GrepValues = ReturnType<typeof parseFlags<typeof args>>["values"];

/** The patterns, the sessions and the numbers the flags ask for, each checked (usage errors throw). */
function readRequest(flags: readonly string[], data: CommandData) {
  const { values, positionals: before } = parseFlags(flags, args);
  // As grep: what follows `--` is never an option (`derun grep -- -v last`: the pattern -v).
  const positionals = [...before, ...(data.command ?? [])];
  const [first, ...rest] = positionals;
  const patterns = values.regexp ?? (first === undefined ? [] : [first]);
  const refs = values.regexp === undefined ? rest : positionals;
  if (patterns.length === 0) throw usageError("derun grep needs a pattern");
  const context =
    values.context === undefined
      ? 0
      : /^[0-9]{1,3}$/.test(values.context) && Number(values.context) <= MAX_CONTEXT
        ? Number(values.context)
        : NaN;
  if (Number.isNaN(context))
    throw usageError(`option "--context" takes a whole number up to ${MAX_CONTEXT} (got ${shown(values.context!)})`);
  const max = values.max === undefined ? DEFAULT_MAX : positiveInteger("--max", values.max);
  const command = commandSelector(values.command);
  if (command !== undefined && refs.length === 0)
    throw usageError('--command needs the session it belongs to: derun grep <pattern> <id> --command N|"last"');
  return { values, patterns, refs, context, max, command };
}

/** The patterns as one search pattern; a bad one throws, named as typed. */
function compilePatterns(patterns: readonly string[], values: GrepValues): SearchPattern {
  const literal = values["fixed-strings"] === true;
  const ignoreCase = values["ignore-case"];
  // One regular expression for several, each pattern a choice of its own: each is judged alone
  // first (a bad one is named as typed, and `a)(b` cannot pass as part of `(?:a)(b)`), and groups
  // are numbered across all of them, so a back-reference would point into another pattern.
  if (patterns.length > 1) {
    for (const p of patterns) compilePattern(p, { literal, ignoreCase });
    if (!literal && patterns.some((p) => /\\(?:[1-9]|k<)/.test(p)))
      throw usageError("a back-reference (\\1, \\k<name>) works in a pattern given alone, not among several -e");
  }
  const source = patterns.map((p) => (literal ? escapeRegex(p) : patterns.length > 1 ? `(?:${p})` : p)).join("|");
  const compiled = patterns.length === 1 ? compilePattern(patterns[0]!, { literal, ignoreCase }) : compilePattern(source, { ignoreCase });
  // -w: between word boundaries, as grep -w is for a pattern that starts and ends with a word character.
  return values["word-regexp"] ? compilePattern(`\\b(?:${source})\\b`, { ignoreCase }) : compiled;
}

/** Prints each session's finds as the flags ask (lines, counts, ids, parts, or kept for --json), and counts them. */
class GrepOutput {
  readonly out = new LineOut();
  readonly results: Found[] = [];
  matchCount = 0;
  remaining: number;
  readonly #values: GrepValues;
  readonly #named: boolean;
  readonly #prefixIds: boolean;
  readonly #colour: boolean;
  readonly #compiled: SearchPattern;
  readonly #printer: GrepPrinter;

  constructor(
    values: GrepValues,
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

export async function run(flags: readonly string[], data: CommandData = {}): Promise<ExitRequest> {
  const { values, patterns, refs, context, max, command } = readRequest(flags, data);
  const memory = new MemoryBound(); // a search streams gigabytes through short-lived strings: see MemoryBound
  let compiled: SearchPattern;
  try {
    compiled = compilePatterns(patterns, values);
  } catch (error) {
    ui.error(describeError(error));
    return exitWith(2);
  }
  const counting = values.count === true || values["files-with-matches"] === true;
  const colour = values.color === "always" ? true : values.color === "never" ? false : colourOn(1);
  // No deadline: a person stops a long grep with Ctrl-C (every line's work is bounded: views/pattern/pattern.ts).
  const options = {
    pattern: compiled,
    context: counting || values["only-matching"] ? 0 : context,
    channel: values.channel,
    deadline: Infinity,
    invert: values["invert-match"] === true,
    onWindow: () => memory.check(),
  };
  const reader = await openReader(values["state-root"], { redact: !values["no-redact"] });
  keepMaskMaps(true); // no timing oracle: each session's mask map, made once and kept in its directory (transcript/mask-map.ts)
  const named = refs.length > 0;
  const output = new GrepOutput(values, {
    named,
    prefixIds: !named || refs.length > 1,
    colour,
    compiled,
    context: options.context,
    max: counting ? 0 : max,
  });
  let across: SessionsSearched | undefined;
  let searched = 0;
  let errors = 0;
  if (named) {
    for (const ref of refs) {
      try {
        const t = await openTranscript(reader.store, await reader.session(ref), command);
        if (values.channel !== undefined) refuseOneStream(t, values.channel);
        output.show(await searchTranscript(t, { ...options, maxMatches: output.remaining }));
        searched++;
      } catch (error) {
        // The reader of stdout went away (`| head`): die by SIGPIPE as grep does (the dispatcher), saying nothing.
        if ((error as NodeJS.ErrnoException).code === "EPIPE") throw error;
        errors++;
        ui.error(describeError(error));
      }
    }
  } else {
    across = await searchAllSessions(reader.store, { ...options, maxMatches: output.remaining, onFound: output.show });
    searched = across.sessions_searched;
  }
  output.out.flush();
  const shownCount = counting ? output.matchCount : max - output.remaining;
  if (values.json) ui.log(JSON.stringify(jsonAnswer(patterns.join("\n"), searched, across, output, shownCount)));
  else {
    if (output.matchCount > shownCount) ui.info(`${shownCount} of ${output.matchCount} matching lines shown (--max for more)`);
    // Searching them all: say so when some could not be.
    if (across && across.sessions_skipped > 0) ui.info(sessionsSearchedText(across));
  }
  return exitWith(errors > 0 ? 2 : output.matchCount > 0 ? 0 : 1);
}

/**
 * derun_search_output's answer. As grep: several patterns, a line that matches any (the answer lists
 * them one per line, as grep -f reads them).
 */
function jsonAnswer(pattern: string, searched: number, across: SessionsSearched | undefined, output: GrepOutput, shownCount: number) {
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
