import { arktype } from "../core/ark.ts";
import type { Store } from "../core/store.ts";
import { SCHEMA_VERSION } from "../core/enums.ts";
import { defineQuery } from "../core/tool.ts";
import { capped, positiveIntegerType, sessionIdType, WAIT_DEFAULT_TIMEOUT_MS, WAIT_MAX_TIMEOUT_MS } from "./_args.ts";
import { rowOf, type CommandRow } from "./_command-row.ts";
import {
  readSessions,
  openTranscript,
  readCommands,
  resolveSessionId,
  sessionSummary,
  maskedFact,
  redactedField,
  SEP,
  subjectOf,
  subjectText,
  textLines,
  waitForEnd,
  withLines,
  type Subject,
} from "../transcript/index.ts";

/** Lines of the ended command's text returned with it, within TAIL_CHARS. */
const TAIL_LINES = 20;
const TAIL_CHARS = 2000;

type SessionSummary = ReturnType<typeof sessionSummary>;

export interface WaitCommandResult {
  readonly schema_version: typeof SCHEMA_VERSION;
  readonly timed_out: boolean;
  readonly waited_ms: number;
  /** A shell command ended: its record, as derun_list_commands lists it. */
  readonly command?: CommandRow;
  /** A session ended (a `derun run`, or a shell's own end). */
  readonly session?: SessionSummary;
  readonly subject?: Subject;
  /** The last lines of its text view, and their numbers. */
  readonly first_line?: number;
  readonly last_line?: number;
  readonly total_lines?: number;
  readonly lines: readonly string[];
  /** Secrets masked in the answer: the command lines and directory, and the lines (absent: none). */
  readonly redacted?: number;
}

/** The last lines of what ended (the text view of its range). */
async function tailOf(store: Store, sessionId: string, command: number | undefined, signal?: AbortSignal) {
  const t = await openTranscript(store, sessionId, command);
  return { t, tail: await textLines(t, { tail: TAIL_LINES }, TAIL_CHARS, undefined, signal) };
}

/**
 * The first tail a server reads runs cold code (about 100 ms of a loaded machine's time, against
 * a few ms warm): read one while nothing has ended, so the answer that is due comes at once.
 */
let warmed = false;
async function warmUp(store: Store): Promise<void> {
  if (warmed) return;
  warmed = true;
  const newest = (await readSessions(store))[0]?.info;
  if (!newest) return;
  const id = newest.meta.session_id;
  // A shell's commands are what end most: their path (the command's range) is the one to warm.
  const last = newest.meta.records_commands ? (await readCommands(store, id)).findLast((c) => c.output_start !== null) : undefined;
  await tailOf(store, id, last?.number);
}

/** derun_wait_command: the agent woken when the next command (or session) ends. */
export default defineQuery({
  name: "derun_wait_command",
  description: "Wait for the next shell command or session to end; return its record and last lines.",
  input: () =>
    arktype().type({
      "session_id?": sessionIdType(),
      "failed_only?": "boolean",
      "timeout_ms?": positiveIntegerType(),
      "+": "reject",
    }),
  annotations: {
    title: "Wait for a command",
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  async handler(input, { store, signal }): Promise<WaitCommandResult> {
    const started = performance.now();
    const timeoutMs = capped(input.timeout_ms, WAIT_DEFAULT_TIMEOUT_MS, WAIT_MAX_TIMEOUT_MS);
    const sessionId = input.session_id === undefined ? undefined : await resolveSessionId(store, input.session_id);
    void warmUp(store).catch(() => undefined);
    const ended = await waitForEnd(store, { sessionId, failedOnly: input.failed_only }, timeoutMs, signal);
    const waited = Math.round(performance.now() - started);
    if (!ended) return { schema_version: SCHEMA_VERSION, timed_out: true, waited_ms: waited, lines: [] };
    const id = ended.info.meta.session_id;
    const record = ended.command ? { command: rowOf(id, ended.command) } : { session: sessionSummary(ended.info) };
    try {
      const { t, tail } = await tailOf(store, id, ended.command?.number, signal);
      const lines = tail.first_line === undefined ? {} : { first_line: tail.first_line, last_line: tail.last_line };
      const subject = subjectOf(t);
      return {
        schema_version: SCHEMA_VERSION,
        timed_out: false,
        waited_ms: waited,
        ...record,
        subject,
        ...lines,
        total_lines: tail.total_lines,
        lines: tail.lines,
        ...redactedField((subject.redacted ?? 0) + (tail.redacted ?? 0)),
      };
    } catch {
      // A command without an output range (no start mark): its record alone.
      return {
        schema_version: SCHEMA_VERSION,
        timed_out: false,
        waited_ms: waited,
        ...record,
        lines: [],
        ...redactedField(record.command?.redacted ?? 0),
      };
    }
  },
  render: (r) => {
    if (r.timed_out) return `nothing ended in ${r.waited_ms} ms (timed out)`;
    const what = r.subject
      ? subjectText(r.subject)
      : r.command
        ? `command ${r.command.number} of session ${r.command.session_id}: exit ${r.command.exit_code ?? "unknown"}`
        : `session ${r.session!.session_id}`;
    const facts = [what, `waited ${r.waited_ms} ms`];
    if (r.first_line !== undefined) facts.push(`text lines ${r.first_line}-${r.last_line} of ${r.total_lines}`);
    if (r.redacted) facts.push(maskedFact(r.redacted));
    return withLines(facts.join(SEP), r.lines);
  },
});
