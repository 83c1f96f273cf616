/**
 * `derun grep <pattern> [<id>...]`: the text view of sessions (or of one command in each) searched
 * by the helper derun_search_output uses, printed with grep's conventions: `line:` a match (`id:line:`
 * when several sessions are searched), `line-` context, `--` between context groups; exit 0 when a
 * line matched, 1 when none did, 2 on an error (a bad pattern, a missing session).
 */
import { SCHEMA_VERSION } from "../../core/enums.ts";
import { MemoryBound, compilePattern, searchTranscript, type Found, openTranscript, readSessions } from "../../transcript/index.ts";
import { describeError } from "../../core/errors.ts";
import type { SearchPattern } from "../../views/search.ts";
import { SEARCH_SESSIONS, type SearchOutputResult } from "../../queries/search-output.ts";
import { exitWith, type ExitRequest } from "../command.ts";
import { parseFlags, positiveInteger, type FlagDefs } from "../flags.ts";
import { colourOn } from "../paint.ts";
import { openReader } from "../reader.ts";
import { STATE_ROOT_FLAG } from "../state-root.ts";
import { NO_REDACT_FLAG } from "../redact-flag.ts";
import { ui } from "../ui.ts";
import { shown, usageError } from "../usage.ts";
import { GrepPrinter } from "./_grep-lines.ts";
import { COMMAND_FLAG, commandSelector, SESSION_ARG } from "./_session-arg.ts";
import { LineOut } from "./_views.ts";

const DEFAULT_MAX = 1000;
const MAX_CONTEXT = 100;

export const args = {
  pattern: { type: "positional", description: "A regular expression (JavaScript syntax; -F: plain text), run on the first 4096 characters of each line." },
  id: { ...SESSION_ARG, required: false, description: `Sessions to search: ids, "last" or "last~N" (default: the ${SEARCH_SESSIONS} newest sessions).` },
  "ignore-case": { type: "boolean", alias: "i", description: "Match upper and lower case alike." },
  "fixed-strings": { type: "boolean", alias: "F", description: "The pattern is plain text, not a regular expression." },
  regexp: { type: "string", alias: "e", valueHint: "pattern", description: "The pattern, given as a flag (for one that starts with -); then every argument is a session." },
  context: { type: "string", alias: "C", valueHint: "n", description: `Lines of context before and after each match (default 0, at most ${MAX_CONTEXT}).` },
  max: { type: "string", alias: "m", valueHint: "n", description: `Show at most this many matching lines in all (default ${DEFAULT_MAX}); every match is counted.` },
  channel: { type: "enum", options: ["stdout", "stderr"], description: "Search only what the command wrote to this stream (pipe sessions)." },
  command: COMMAND_FLAG,
  json: { type: "boolean", description: "The derun_search_output answer (the same fields), as JSON." },
  "no-redact": NO_REDACT_FLAG,
  "state-root": STATE_ROOT_FLAG,
} as const satisfies FlagDefs;

export const usage = "<pattern> [<id>...] [options]";

export const examples = [
  `derun grep -i error                       # the ${SEARCH_SESSIONS} newest sessions, "id:line:" before each match`,
  "derun grep -C 2 'FAIL|✗' last             # the newest session, two lines around each match",
  "derun grep -F '[error]' build test        # two sessions, plain text",
  "derun grep --command last warning shell   # only the last command typed in a derun shell",
  "derun grep --channel stderr -i warn last  # only what it wrote to stderr (pipe sessions)",
  "derun grep --regexp=-v last               # a pattern that starts with -",
  "derun grep --max 5 --json TODO last       # for scripts: the MCP answer's fields",
];

export async function run(flags: readonly string[]): Promise<ExitRequest> {
  const { values, positionals } = parseFlags(flags, args);
  const [pattern, ...refs] = values.regexp === undefined ? positionals : [values.regexp, ...positionals];
  if (pattern === undefined) throw usageError("derun grep needs a pattern");
  const context = values.context === undefined ? 0 : /^[0-9]{1,3}$/.test(values.context) && Number(values.context) <= MAX_CONTEXT ? Number(values.context) : NaN;
  if (Number.isNaN(context)) throw usageError(`option "--context" takes a whole number up to ${MAX_CONTEXT} (got ${shown(values.context!)})`);
  const max = values.max === undefined ? DEFAULT_MAX : positiveInteger("--max", values.max);
  const command = commandSelector(values.command);
  if (command !== undefined && refs.length === 0) throw usageError('--command needs the session it belongs to: derun grep <pattern> <id> --command N|"last"');
  const memory = new MemoryBound(); // a search streams gigabytes through short-lived strings: see MemoryBound
  let compiled: SearchPattern;
  try {
    compiled = compilePattern(pattern, { literal: values["fixed-strings"], ignoreCase: values["ignore-case"] });
  } catch (error) {
    ui.error(describeError(error));
    return exitWith(2);
  }
  // No deadline: a person stops a long grep with Ctrl-C (the pattern check refused runaway shapes).
  const options = { pattern: compiled, context, channel: values.channel, deadline: Infinity, onWindow: () => memory.check() };
  const highlight = compiled.re;

  const reader = openReader(values["state-root"], { redact: !values["no-redact"] });
  // Named sessions must exist; the newest ones are whatever is still there when searched.
  const named = refs.length > 0;
  const targets = named ? refs : (await readSessions(reader.store)).slice(0, SEARCH_SESSIONS).map((s) => s.info.meta.session_id);
  const out = new LineOut();
  const printer = new GrepPrinter(out, { prefixIds: targets.length > 1, context, colour: colourOn(1), highlight });
  const results: Found[] = [];
  let [errors, searched, matchCount, remaining] = [0, 0, 0, max];
  for (const ref of targets) {
    if (remaining === 0) break;
    let found: Found;
    try {
      const t = await openTranscript(reader.store, named ? await reader.session(ref) : ref, command);
      found = await searchTranscript(t, { ...options, maxMatches: remaining });
    } catch (error) {
      if (named) {
        errors++;
        ui.error(describeError(error));
      }
      continue;
    }
    searched++;
    matchCount += found.match_count;
    remaining -= found.matches.length;
    if (values.json) {
      if (found.match_count > 0 || named) results.push(found);
    } else printer.print(found);
  }
  out.flush();
  const shownCount = max - remaining;
  if (values.json) {
    const answer: SearchOutputResult = { schema_version: SCHEMA_VERSION, pattern, sessions_searched: searched, match_count: matchCount, truncated: matchCount > shownCount, results };
    ui.log(JSON.stringify(answer));
  } else if (matchCount > shownCount || (remaining === 0 && searched < targets.length)) {
    const more = searched < targets.length ? " or more" : "";
    ui.info(`${shownCount} of ${matchCount}${more} matching lines shown (--max for more)`);
  }
  return exitWith(errors > 0 ? 2 : matchCount > 0 ? 0 : 1);
}
