import { arktype } from "../core/ark.ts";
import { DerunSessionState, SCHEMA_VERSION } from "../core/enums.ts";
import { defineQuery } from "../core/tool.ts";
import { capped, LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT, positiveIntegerType } from "./_args.ts";
import {
  commandLine,
  oneLine,
  outcome,
  SEP,
  size,
  when,
  sessionSummary,
  readSessions,
  maskedFact,
  redactedField,
  outsideScopeText,
} from "../transcript/index.ts";

const states = Object.values(DerunSessionState);

/** derun_list_sessions: which recorded sessions exist, newest first. */
export default defineQuery({
  name: "derun_list_sessions",
  description: [
    "Recorded sessions (`derun run`, `derun shell`), newest first: id, state, exit code, command, times,",
    "output size; total counts all in that state.",
  ].join(" "),
  input: () =>
    arktype().type({
      "state?": arktype()
        .type.enumerated(...states)
        .configure({ expected: `one of ${states.join(", ")}` }),
      "limit?": positiveIntegerType().configure({ description: `default ${LIST_DEFAULT_LIMIT}` }),
      "+": "reject",
    }),
  annotations: {
    title: "List recorded sessions",
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  async handler(input, { store }) {
    const limit = capped(input.limit, LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT);
    const sessions = (await readSessions(store)).filter(({ info }) => input.state === undefined || info.state === input.state);
    const shown = sessions.slice(0, limit);
    const redacted = shown.reduce((n, s) => n + s.redacted, 0);
    // A scoped server (derun mcp --scope): the count of the others, never which they are.
    const outside = await store.outsideScope?.();
    return {
      schema_version: SCHEMA_VERSION,
      total: sessions.length,
      ...(outside === undefined ? {} : { outside_scope: outside }),
      sessions: shown.map((s) => sessionSummary(s.info)),
      ...redactedField(redacted),
    };
  },
  render: ({ total, sessions, redacted, outside_scope }) => {
    const rows = sessions.map((s) =>
      [s.session_id, outcome(s), size(s.output_bytes), oneLine(when(s.started_at)), oneLine(s.transport_mode), commandLine(s.command)].join(
        SEP,
      ),
    );
    const shown = sessions.length < total ? `${sessions.length} of ${total} sessions` : `${total} session${total === 1 ? "" : "s"}`;
    const outside = outside_scope === undefined ? "" : `${SEP}${outsideScopeText(outside_scope)}`;
    return [`${shown}, newest first${outside}${redacted ? `${SEP}${maskedFact(redacted)}` : ""}`, ...rows].join("\n");
  },
});
