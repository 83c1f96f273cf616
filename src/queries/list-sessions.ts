import { type } from "arktype";
import { DerunSessionState, SCHEMA_VERSION } from "../core/enums.ts";
import { defineQuery } from "./query.ts";
import { capped, LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT, positiveIntegerType } from "./_args.ts";
import { sessionSummary } from "./_session.ts";

const states = Object.values(DerunSessionState);

/** derun_list_sessions: which recorded sessions exist, newest first. */
export default defineQuery({
  name: "derun_list_sessions",
  description: [
    "List the terminal sessions recorded by `derun run`, newest first: each with its session_id, state",
    `(${states.join(", ")}), command (argv), started_at, ended_at once ended, exit_code (exited) or signal`,
    "(signaled), output_bytes recorded so far,",
    "and transport_mode (posix-pty or windows-conpty: one terminal stream; pipe: stdout and stderr kept apart).",
    "Use it to find the session_id of a build, test run or server the user started, then read its output",
    "with derun_read_output, or follow a running one with derun_wait_output. total counts the sessions in the",
    "state asked for, including those past limit.",
  ].join(" "),
  input: type({
    "state?": type.enumerated(...states).configure({ expected: `one of ${states.join(", ")}`, description: "only sessions in this state, e.g. running" }),
    "limit?": positiveIntegerType.configure({
      description: `the most sessions to return, a positive integer (default ${LIST_DEFAULT_LIMIT}; larger values are clamped to ${LIST_MAX_LIMIT})`,
    }),
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
    const sessions = (await store.list()).filter((info) => input.state === undefined || info.state === input.state);
    return { schema_version: SCHEMA_VERSION, total: sessions.length, sessions: sessions.slice(0, limit).map(sessionSummary) };
  },
});
