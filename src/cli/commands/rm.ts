/**
 * `derun rm <id>...`: delete sessions now, whatever their retention (a transcript holding a secret).
 * A running one only with `--force`, which deletes and stops nothing. Every reference is checked
 * before anything is deleted; then each id gets its own line, and the exit is 1 if any was not removed.
 */
import { SCHEMA_VERSION } from "../../core/enums.ts";
import { describeError } from "../../core/errors.ts";
import type { RemoveOutcome } from "../../core/store.ts";
import { exitWith, type ExitRequest } from "../command.ts";
import { parseFlags, type FlagDefs } from "../flags.ts";
import { openReader } from "../reader.ts";
import { STATE_ROOT_FLAG } from "../state-root.ts";
import { visible } from "../format.ts";
import { ui } from "../ui.ts";
import { usageError } from "../usage.ts";
import { SESSION_ARG } from "./_session-arg.ts";
import { grepPattern, sessionsMatching } from "./_rm-grep.ts";

export const args = {
  ids: { ...SESSION_ARG, description: 'The sessions: ids, "last" (the newest) or "last~N" (the Nth before it).' },
  grep: {
    type: "string",
    valueHint: "pattern",
    description:
      "Every session whose output or command lines match this regular expression (as recorded, secrets unmasked): " +
      "after a secret was shown.",
  },
  "fixed-strings": { type: "boolean", alias: "F", description: "With --grep: the pattern is plain text." },
  "dry-run": { type: "boolean", description: "With --grep: only list the sessions that would be removed." },
  force: { type: "boolean", description: "Delete running sessions too (their commands keep running; only the recording is deleted)." },
  json: { type: "boolean", description: "One outcome per session ({ session_id, removed, reason }), as JSON." },
  "state-root": STATE_ROOT_FLAG,
} as const satisfies FlagDefs;

export const usage = "[OPTIONS] <ID>...";
export const examples = [
  "derun rm last",
  "derun rm 01JCZ3T5M7Q8W2E4R6T8Y0U2I4 01JCZ3V0AB5C7D9E1F3G5H7J9K",
  "derun rm --force last       # the newest, even while it runs",
  "derun rm --grep 'ghp_[A-Za-z0-9]+' --dry-run   # which sessions hold a GitHub token",
];

const SAID: Record<RemoveOutcome["reason"], string> = {
  removed: "removed",
  link_removed: "removed the link (its target is left alone)",
  active_session: "not removed: it is running (--force deletes it anyway)",
  not_found: "not removed: session not found",
  remove_error: "not removed",
};

export async function run(flags: readonly string[]): Promise<ExitRequest> {
  const { values, positionals } = parseFlags(flags, args);
  if (values.grep !== undefined && positionals.length > 0) throw usageError("derun rm takes sessions or --grep, not both");
  if (values.grep === undefined && (values["dry-run"] || values["fixed-strings"]))
    throw usageError(`--${values["dry-run"] ? "dry-run" : "fixed-strings"} goes with --grep`);
  if (values.grep === undefined && positionals.length === 0)
    throw usageError('derun rm needs at least one session: an id, "last" or "last~N" (or --grep <pattern>)');
  const pattern = values.grep === undefined ? undefined : grepPattern(values.grep, values["fixed-strings"] ?? false);
  // Matched unmasked (see ./_rm-grep.ts); nothing is printed from the sessions but their ids.
  const reader = await openReader(values["state-root"], pattern ? { redact: false } : {});
  const refs = pattern ? await sessionsMatching(reader, pattern) : positionals;
  if (pattern && refs.length === 0) ui.info("no session matches");
  if (pattern && (values["dry-run"] || refs.length === 0)) {
    for (const id of refs) ui.log(`${id}: would be removed`);
    return exitWith(0);
  }
  // All references first: `rm last last~1` means two sessions, whatever the first removal changes.
  const ids: string[] = [];
  const outcomes: RemoveOutcome[] = [];
  for (const ref of refs) {
    try {
      ids.push(await reader.resolve(ref));
    } catch (error) {
      if ((error as { code?: string }).code === "usage") throw error;
      outcomes.push({ session_id: ref, removed: false, reason: "not_found", error: describeError(error) });
    }
  }
  for (const id of new Set(ids)) outcomes.push(await reader.store.remove(id, { force: values.force }));
  if (values.json) ui.log(JSON.stringify({ schema_version: SCHEMA_VERSION, outcomes }));
  for (const outcome of values.json ? [] : outcomes) {
    const line = visible(`${outcome.session_id}: ${SAID[outcome.reason]}${outcome.reason === "remove_error" ? ` (${outcome.error})` : ""}`);
    if (outcome.removed) ui.log(line);
    else ui.error(line);
  }
  return exitWith(outcomes.every((outcome) => outcome.removed) ? 0 : 1);
}
