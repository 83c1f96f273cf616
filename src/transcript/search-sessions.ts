/**
 * A search of every session, newest first (derun_search_output and `derun grep` without a session):
 * each session's transcript searched in turn, and an account of what was not: a session removed or
 * unreadable between the listing and its search is skipped with the reason, and the sessions left
 * when the deadline passed are counted as not searched.
 */
import { isDerunError } from "../core/errors.ts";
import type { Store } from "../core/store.ts";
import { searchTranscript, type Found, type SearchTranscriptOptions } from "./search.ts";
import { openTranscript, type CommandSelector } from "./transcript.ts";

/** Skipped sessions named in an answer; past this many only their number is given. */
const SKIPPED_NAMED = 20;

export interface SkippedSession {
  readonly session_id: string;
  readonly reason: string;
}

export interface SessionsSearched {
  /** Sessions there were to search (all of them, or those named). */
  readonly sessions_total: number;
  readonly sessions_searched: number;
  /** Sessions that could not be searched, and why (the first SKIPPED_NAMED; `sessions_skipped` counts them all). */
  readonly skipped: readonly SkippedSession[];
  readonly sessions_skipped: number;
  /** Sessions left unsearched when the search ran out of time. */
  readonly sessions_not_searched: number;
}

export interface SearchSessionsOptions extends Omit<SearchTranscriptOptions, "maxMatches"> {
  readonly maxMatches: number;
  readonly command?: CommandSelector;
  /** Bytes read at once (tests lower it). */
  readonly windowBytes?: number;
  /** Each session's result as soon as it is searched (matches or not). */
  readonly onFound: (found: Found) => void;
}

const reasonOf = (error: unknown): string =>
  isDerunError(error, "session_not_found")
    ? "removed while searching"
    : isDerunError(error)
      ? `unreadable (${error.code})`
      : `unreadable (${error instanceof Error ? error.message.split("\n")[0]!.slice(0, 120) : String(error)})`;

/** Every session in `store`, newest first, searched until `options.deadline`. */
export async function searchAllSessions(store: Store, options: SearchSessionsOptions): Promise<SessionsSearched> {
  const ids = (await store.list()).map((s) => s.meta.session_id);
  const skipped: SkippedSession[] = [];
  let skippedCount = 0;
  let searched = 0;
  let remaining = options.maxMatches;
  const searchedSoFar = (notSearched: number): SessionsSearched => ({
    sessions_total: ids.length,
    sessions_searched: searched,
    skipped,
    sessions_skipped: skippedCount,
    sessions_not_searched: notSearched,
  });
  for (const [k, id] of ids.entries()) {
    if (options.signal?.aborted || performance.now() > options.deadline) return searchedSoFar(ids.length - k);
    let found: Found;
    try {
      // Past maxMatches the later sessions are still searched: every matching line is counted.
      found = await searchTranscript(await openTranscript(store, id, options.command, options.windowBytes), {
        ...options,
        maxMatches: remaining,
      });
    } catch (error) {
      skippedCount++;
      if (skipped.length < SKIPPED_NAMED) skipped.push({ session_id: id, reason: reasonOf(error) });
      continue;
    }
    searched++;
    remaining = Math.max(0, remaining - found.matches.length);
    options.onFound(found);
    if (found.stopped) return searchedSoFar(ids.length - k - 1);
  }
  return searchedSoFar(0);
}

/** "12 of 40 sessions searched (newest first); 2 skipped: a (removed while searching), b (...); 26 not searched: out of time". */
export function sessionsSearchedText(s: SessionsSearched): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const parts = [`${s.sessions_searched} of ${plural(s.sessions_total, "session")} searched (newest first)`];
  if (s.sessions_skipped > 0) {
    const named = s.skipped.map((k) => `${k.session_id} (${k.reason})`).join(", ");
    parts.push(`${s.sessions_skipped} skipped: ${named}${s.sessions_skipped > s.skipped.length ? ", …" : ""}`);
  }
  if (s.sessions_not_searched > 0) parts.push(`${s.sessions_not_searched} not searched: out of time`);
  return parts.join("; ");
}
