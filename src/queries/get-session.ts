import { type } from "arktype";
import { SCHEMA_VERSION } from "../core/enums.ts";
import { defineQuery } from "./query.ts";
import { sessionIdType } from "./_args.ts";
import { sessionDetail } from "./_session.ts";
import { resolveSessionId } from "./session-ref.ts";

/** derun_get_session: everything recorded about one session, except its output. */
export default defineQuery({
  name: "derun_get_session",
  description: [
    "Get one recorded session's metadata: state (starting, running, exited, signaled, failed), command,",
    "working_directory, started_at, ended_at, exit_code (when exited), signal (when signaled), error",
    "(when failed: for instance the recording derun died), pid, transport_mode, tty_attached, cols and rows",
    "(the terminal size at start, when there was one),",
    "output_bytes (committed so far), retention_seconds and expires_at. Use it to learn whether a",
    "command finished and how; read the output itself with derun_read_output.",
  ].join(" "),
  input: type({ session_id: sessionIdType, "+": "reject" }),
  annotations: {
    title: "Get a session",
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  async handler(input, { store }) {
    return { schema_version: SCHEMA_VERSION, session: sessionDetail(await store.get(await resolveSessionId(store, input.session_id))) };
  },
});
