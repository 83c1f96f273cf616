/**
 * `derun grep <pattern> [<id>...]`: the text view of sessions (or of one command in each) searched
 * by the helper derun_search_output uses, printed with grep's conventions: `line:` a match (`id:line:`
 * when several sessions are searched), `line-` context, `--` between context groups; exit 0 when a
 * line matched, 1 when none did, 2 on an error (a bad pattern, a missing session). Without a
 * session, every session is searched, newest first. grep's reflex flags work: -n (line numbers are
 * always shown), -c, -l, -v, -w, -o, --color.
 */
import {
  MemoryBound,
  keepMaskMaps,
  searchAllSessions,
  searchTranscript,
  sessionsSearchedText,
  openTranscript,
  type SearchPattern,
  type SessionsSearched,
} from "../../transcript/index.ts";
import { describeError } from "../../core/errors.ts";
import { exitWith, type CommandData, type ExitRequest } from "../command.ts";
import { parseFlags, positiveInteger, type FlagDefs } from "../flags.ts";
import { colourOn } from "../paint.ts";
import { openReader } from "../reader.ts";
import { STATE_ROOT_FLAG } from "../state-root.ts";
import { NO_REDACT_FLAG } from "../redact-flag.ts";
import { ui } from "../ui.ts";
import { shown, usageError } from "../usage.ts";
import { GrepOutput, jsonAnswer } from "./_grep-output.ts";
import { compilePatterns } from "./_grep-pattern.ts";
import { COMMAND_FLAG, commandSelector, SESSION_ARG } from "./_session-arg.ts";
import { refuseOneStream } from "./_views.ts";

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
