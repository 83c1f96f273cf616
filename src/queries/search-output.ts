import { type } from "arktype";
import { SCHEMA_VERSION } from "../core/enums.ts";
import { DerunError, isDerunError } from "../core/errors.ts";
import { quote } from "../core/quote.ts";
import { compilePattern } from "../views/search.ts";
import { DEFAULT_LIMITS, defineQuery } from "./query.ts";
import { capped, channelType, commandType, positiveIntegerType, sessionIdType } from "./_args.ts";
import { SEP, searchTranscript, renderFound, type Found, openTranscript, readSessions, maskedFact } from "../transcript/index.ts";

const DEFAULT_MATCHES = 20;
const MAX_MATCHES = 200;
const MAX_CONTEXT = 20;
/** Sessions searched when no session_id is given, newest first. */
export const SEARCH_SESSIONS = 10;

export interface SearchOutputResult {
  readonly schema_version: typeof SCHEMA_VERSION;
  readonly pattern: string;
  readonly sessions_searched: number;
  readonly match_count: number;
  /** More lines matched than are shown. */
  readonly truncated: boolean;
  /** The search ran out of time after this many ms: later lines and sessions were not searched. */
  readonly stopped_after_ms?: number;
  /** The sessions with matches (with session_id: that one, matches or not). */
  readonly results: readonly Found[];
  /** Secrets masked in the lines and commands shown (absent: none). */
  readonly redacted?: number;
}

/** derun_search_output: a regular expression or literal over the text view of one session or the newest ones. */
export default defineQuery({
  name: "derun_search_output",
  description: [
    "Search a session's text output for a regular expression (or literal): matching lines with numbers,",
    `context, and the count. No session_id: the ${SEARCH_SESSIONS} newest sessions.`,
  ].join(" "),
  input: type({
    pattern: type("string").configure({ expected: "a string" }),
    "session_id?": sessionIdType,
    "literal?": "boolean",
    "ignore_case?": "boolean",
    "context?": type("number.integer >= 0").configure({ expected: "a whole number", description: "lines around each match" }),
    "max_matches?": positiveIntegerType.configure({ description: `default ${DEFAULT_MATCHES}` }),
    "channel?": channelType,
    "command?": commandType,
    "+": "reject",
  }),
  annotations: {
    title: "Search session output",
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  structured: false,
  async handler(input, { store, signal, limits }): Promise<SearchOutputResult> {
    if (input.command !== undefined && input.session_id === undefined) throw new DerunError("invalid_argument", "command needs session_id");
    // Before any session is read: a bad pattern is refused even when there is nothing to search.
    const pattern = compilePattern(input.pattern, { literal: input.literal, ignoreCase: input.ignore_case });
    const started = performance.now();
    const deadline = started + (limits?.searchMs ?? DEFAULT_LIMITS.searchMs);
    const ids = input.session_id !== undefined ? [input.session_id] : (await readSessions(store)).slice(0, SEARCH_SESSIONS).map((s) => s.info.meta.session_id);
    let remaining = capped(input.max_matches, DEFAULT_MATCHES, MAX_MATCHES);
    const options = { pattern, context: Math.min(input.context ?? 0, MAX_CONTEXT), channel: input.channel, signal, deadline };
    const results: Found[] = [];
    let searched = 0;
    let matchCount = 0;
    let stopped = false;
    for (const id of ids) {
      if (signal.aborted) break;
      let found: Found;
      try {
        // Past max_matches the later sessions are still searched: every matching line is counted.
        found = await searchTranscript(await openTranscript(store, id, input.command, limits?.windowBytes), { ...options, maxMatches: remaining });
      } catch (error) {
        // A session removed (or unreadable) between the listing and the search is skipped.
        if (input.session_id === undefined && isDerunError(error) && error.code !== "invalid_argument") continue;
        throw error;
      }
      searched++;
      matchCount += found.match_count;
      remaining -= found.matches.length;
      if (found.match_count > 0 || input.session_id !== undefined || found.stopped) results.push(found);
      if (found.stopped) {
        stopped = true;
        break;
      }
    }
    const shown = results.reduce((n, r) => n + r.matches.length, 0);
    const redacted = results.reduce((n, r) => n + (r.redacted ?? 0), 0);
    return {
      schema_version: SCHEMA_VERSION,
      pattern: input.pattern,
      sessions_searched: searched,
      match_count: matchCount,
      truncated: matchCount > shown,
      ...(stopped ? { stopped_after_ms: Math.round(performance.now() - started) } : {}),
      results,
      ...(redacted > 0 ? { redacted } : {}),
    };
  },
  render: (r) => {
    const shown = r.results.reduce((n, f) => n + f.matches.length, 0);
    const facts = [`${quote(r.pattern)}: ${r.match_count} matching line${r.match_count === 1 ? "" : "s"}`];
    facts.push(`${r.sessions_searched} session${r.sessions_searched === 1 ? "" : "s"} searched`);
    if (r.truncated) facts.push(`first ${shown} shown (max_matches)`);
    if (r.redacted) facts.push(maskedFact(r.redacted));
    if (r.stopped_after_ms !== undefined) facts.push(`stopped after ${(r.stopped_after_ms / 1000).toFixed(1)} s: later lines not searched`);
    return [facts.join(SEP), ...r.results.map(renderFound)].join("\n");
  },
});
