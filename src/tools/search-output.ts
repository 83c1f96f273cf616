import { arktype } from "../core/ark.ts";
import { SCHEMA_VERSION } from "../core/enums.ts";
import { DerunError } from "../core/errors.ts";
import { quote } from "../core/quote.ts";
import { compilePattern } from "../views/search.ts";
import { DEFAULT_LIMITS, defineQuery } from "../core/tool.ts";
import { capped, channelType, commandNeedsSession, commandType, positiveIntegerType, sessionIdType } from "./_args.ts";
import {
  SEP,
  redactedField,
  searchTranscript,
  renderFound,
  type Found,
  openTranscript,
  oneStreamReason,
  searchAllSessions,
  sessionsSearchedText,
  outsideScopeText,
  type SkippedSession,
  maskedFact,
} from "../transcript/index.ts";

const DEFAULT_MATCHES = 20;
const MAX_MATCHES = 200;
const MAX_CONTEXT = 20;

export interface SearchOutputResult {
  readonly schema_version: typeof SCHEMA_VERSION;
  readonly pattern: string;
  readonly sessions_searched: number;
  /**
   * Without session_id: the sessions there were (all are searched, newest first), those skipped and why, and those left when time ran out.
   */
  readonly sessions_total?: number;
  readonly sessions_skipped?: number;
  readonly skipped?: readonly SkippedSession[];
  readonly sessions_not_searched?: number;
  readonly match_count: number;
  /** More lines matched than are shown. */
  readonly truncated: boolean;
  /** The search ran out of time after this many ms: later lines and sessions were not searched. */
  readonly stopped_after_ms?: number;
  /** The sessions with matches (with session_id: that one, matches or not). */
  readonly results: readonly Found[];
  /** Secrets masked in the lines and commands shown (absent: none). */
  readonly redacted?: number;
  /** A scoped server (derun mcp --scope), searching every session: how many it may not show, never which. */
  readonly outside_scope?: number;
}

/** derun_search_output: a regular expression or literal over the text view of one session or the newest ones. */
export default defineQuery({
  name: "derun_search_output",
  description: [
    "Search a session's text output for a regular expression (or literal): matching lines with numbers,",
    "context, and the count. No session_id: every session, newest first.",
  ].join(" "),
  input: () =>
    arktype().type({
      pattern: arktype().type("string").configure({ expected: "a string" }),
      "session_id?": sessionIdType(),
      "literal?": "boolean",
      "ignore_case?": "boolean",
      "context?": arktype().type("number.integer >= 0").configure({ expected: "a whole number", description: "lines around each match" }),
      "max_matches?": positiveIntegerType().configure({ description: `default ${DEFAULT_MATCHES}` }),
      "channel?": channelType(),
      "command?": commandType(),
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
    commandNeedsSession(input);
    // Before any session is read: a bad pattern is refused even when there is nothing to search.
    const pattern = compilePattern(input.pattern, { literal: input.literal, ignoreCase: input.ignore_case });
    const started = performance.now();
    const deadline = started + (limits?.searchMs ?? DEFAULT_LIMITS.searchMs);
    const remaining = capped(input.max_matches, DEFAULT_MATCHES, MAX_MATCHES);
    const options = { pattern, context: Math.min(input.context ?? 0, MAX_CONTEXT), channel: input.channel, signal, deadline };
    const results: Found[] = [];
    let matchCount = 0;
    let stopped = false;
    const take = (found: Found) => {
      matchCount += found.match_count;
      if (found.match_count > 0 || input.session_id !== undefined || found.stopped) results.push(found);
      if (found.stopped) stopped = true;
    };
    let searched = 0;
    let across: Omit<SearchOutputResult, "schema_version" | "pattern" | "sessions_searched" | "match_count" | "truncated" | "results"> = {};
    if (input.session_id !== undefined) {
      const t = await openTranscript(store, input.session_id, input.command, limits?.windowBytes);
      const oneStream = input.channel === undefined ? undefined : oneStreamReason(t, input.channel);
      if (oneStream !== undefined) throw new DerunError("invalid_argument", `${oneStream}: leave out channel`);
      take(await searchTranscript(t, { ...options, maxMatches: remaining }));
      searched = 1;
    } else {
      const all = await searchAllSessions(store, { ...options, maxMatches: remaining, windowBytes: limits?.windowBytes, onFound: take });
      searched = all.sessions_searched;
      if (all.sessions_not_searched > 0) stopped = true;
      const outside = await store.outsideScope?.();
      across = {
        ...(outside === undefined ? {} : { outside_scope: outside }),
        sessions_total: all.sessions_total,
        ...(all.sessions_skipped > 0 ? { sessions_skipped: all.sessions_skipped, skipped: all.skipped } : {}),
        ...(all.sessions_not_searched > 0 ? { sessions_not_searched: all.sessions_not_searched } : {}),
      };
    }
    const shown = results.reduce((n, r) => n + r.matches.length, 0);
    const redacted = results.reduce((n, r) => n + (r.redacted ?? 0), 0);
    return {
      schema_version: SCHEMA_VERSION,
      pattern: input.pattern,
      sessions_searched: searched,
      ...across,
      match_count: matchCount,
      truncated: matchCount > shown,
      ...(stopped ? { stopped_after_ms: Math.round(performance.now() - started) } : {}),
      results,
      ...redactedField(redacted),
    };
  },
  render: (r) => {
    const shown = r.results.reduce((n, f) => n + f.matches.length, 0);
    const facts = [`${quote(r.pattern)}: ${r.match_count} matching line${r.match_count === 1 ? "" : "s"}`];
    if (r.sessions_total === undefined) facts.push(`${r.sessions_searched} session${r.sessions_searched === 1 ? "" : "s"} searched`);
    else
      facts.push(
        sessionsSearchedText({
          sessions_total: r.sessions_total,
          sessions_searched: r.sessions_searched,
          skipped: r.skipped ?? [],
          sessions_skipped: r.sessions_skipped ?? 0,
          sessions_not_searched: r.sessions_not_searched ?? 0,
        }),
      );
    if (r.outside_scope !== undefined) facts.push(outsideScopeText(r.outside_scope));
    if (r.truncated) facts.push(`first ${shown} shown (max_matches)`);
    if (r.redacted) facts.push(maskedFact(r.redacted));
    if (r.stopped_after_ms !== undefined)
      facts.push(
        `stopped after ${(r.stopped_after_ms / 1000).toFixed(1)} s: later ` +
          `lines${r.sessions_total === undefined ? "" : " and sessions"} not searched`,
      );
    return [facts.join(SEP), ...r.results.map(renderFound)].join("\n");
  },
});
