/**
 * `derun rm --grep <pattern>`: the sessions whose output (its text view) or command lines (the run's,
 * or those typed in a derun shell) match, for the moment after a secret was shown. Matched on the
 * text as recorded, not masked: a secret masked on reading is exactly what the person looks for.
 */
import {
  compilePattern,
  openTranscript,
  readCommands,
  readSessions,
  searchTranscript,
  type SearchPattern,
} from "../../transcript/index.ts";
import { isDerunError } from "../../core/errors.ts";
import type { Reader } from "../reader.ts";
import { usageError } from "../usage.ts";

/** The pattern, or a usage error saying why not. */
export function grepPattern(source: string, literal: boolean): SearchPattern {
  try {
    return compilePattern(source, { literal });
  } catch (error) {
    if (isDerunError(error)) throw usageError(`--grep: ${error.message}`);
    throw error;
  }
}

const matches = (pattern: SearchPattern, line: string | null): boolean =>
  line !== null && (pattern.literal === undefined ? pattern.re.test(line.slice(0, pattern.lineChars)) : line.includes(pattern.literal));

/** The ids of the sessions that match, newest first. The reader must read unmasked (openReader's redact: false). */
export async function sessionsMatching(reader: Reader, pattern: SearchPattern): Promise<string[]> {
  const ids: string[] = [];
  for (const { info } of await readSessions(reader.store)) {
    const id = info.meta.session_id;
    const typed = info.meta.records_commands ? (await readCommands(reader.store, id)).map((c) => c.command_line) : [];
    if ([info.meta.command.join(" "), ...typed].some((line) => matches(pattern, line))) {
      ids.push(id);
      continue;
    }
    const t = await openTranscript(reader.store, id);
    const found = await searchTranscript(t, { pattern, context: 0, maxMatches: 1, deadline: Number.POSITIVE_INFINITY });
    if (found.match_count > 0) ids.push(id);
  }
  return ids;
}
