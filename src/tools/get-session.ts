import { arktype } from "../core/ark.ts";
import { SCHEMA_VERSION } from "../core/enums.ts";
import { defineQuery } from "../core/tool.ts";
import { sessionIdType } from "./_args.ts";
import {
  commandLine,
  oneLine,
  outcome,
  SEP,
  sessionDetail,
  readSession,
  maskedFact,
  redactedField,
  recordingGaps,
} from "../transcript/index.ts";

/** derun_get_session: everything recorded about one session, except its output. */
export default defineQuery({
  name: "derun_get_session",
  description: "One session: state, exit code or signal, command, cwd, times, pid, terminal size, output size.",
  input: () => arktype().type({ session_id: sessionIdType(), "+": "reject" }),
  annotations: {
    title: "Get a session",
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  async handler(input, { store }) {
    const { info, redacted } = await readSession(store, input.session_id);
    // What the person kept out (derun pause, ignore rules), and a pause going on now.
    const gaps = await recordingGaps(store, info);
    return { schema_version: SCHEMA_VERSION, session: { ...sessionDetail(info), ...gaps }, ...redactedField(redacted) };
  },
  render: ({ session, redacted }) => {
    const { session_id, command, ...rest } = session;
    const header = [
      `session ${oneLine(session_id)}`,
      outcome(session),
      commandLine(command, 200),
      ...(redacted ? [maskedFact(redacted)] : []),
    ].join(SEP);
    return [header, ...Object.entries(rest).map(([key, value]) => `${key}: ${oneLine(String(value), 1000)}`)].join("\n");
  },
});
