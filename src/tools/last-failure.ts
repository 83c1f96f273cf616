import { arktype } from "../core/ark.ts";
import { SCHEMA_VERSION } from "../core/enums.ts";
import { defineQuery } from "../core/tool.ts";
import { capped, commandNeedsSession, commandType, positiveIntegerType, sessionIdType, TEXT_MAX_MAX_CHARS } from "./_args.ts";
import { FAILURE_DEFAULT_MAX_CHARS, failureReport, findFailure, renderFailure, type FailureReport } from "../transcript/index.ts";

export type LastFailureResult = FailureReport & { readonly schema_version: typeof SCHEMA_VERSION };

/** derun_last_failure: "why did that fail?" in one call. */
export default defineQuery({
  name: "derun_last_failure",
  description: [
    "Why the newest failed command (non-zero exit or signal) failed: its error lines with context, then",
    "its last lines.",
  ].join(" "),
  input: () =>
    arktype().type({
      "session_id?": sessionIdType(),
      "command?": commandType(),
      "max_chars?": positiveIntegerType(),
      "+": "reject",
    }),
  annotations: {
    title: "Last failure",
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  structured: false,
  async handler(input, { store, signal, limits }): Promise<LastFailureResult> {
    commandNeedsSession(input);
    const t = await findFailure(store, { session_id: input.session_id, command: input.command }, limits?.windowBytes);
    const report = await failureReport(t, capped(input.max_chars, FAILURE_DEFAULT_MAX_CHARS, TEXT_MAX_MAX_CHARS), undefined, signal);
    return { schema_version: SCHEMA_VERSION, ...report };
  },
  render: renderFailure,
});
