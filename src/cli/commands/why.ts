/**
 * `derun why [<id>]`: why the newest failed command (a `derun shell` command or a `derun run`
 * session) failed, as derun_last_failure answers it: how it ended, its failure lines with their
 * numbers and context, its last lines, and what was left out. Exit 0 when there is a failure to
 * explain, 1 when none is recorded, 2 on an error.
 */
import { SCHEMA_VERSION } from "../../core/enums.ts";
import { isDerunError } from "../../core/errors.ts";
import { FAILURE_DEFAULT_MAX_CHARS, failureReport, findFailure, renderFailure, type ReadHint } from "../../transcript/index.ts";
import { exitWith, type ExitRequest } from "../command.ts";
import { parseFlags, positiveInteger, type FlagDefs } from "../flags.ts";
import { openReader } from "../reader.ts";
import { STATE_ROOT_FLAG } from "../state-root.ts";
import { ui } from "../ui.ts";
import { usageError } from "../usage.ts";
import { COMMAND_FLAG, commandSelector, oneSession, SESSION_ARG } from "./_session-arg.ts";

export const args = {
  id: {
    ...SESSION_ARG,
    required: false,
    description: 'The session to explain (default: the newest failure of all): an id, "last" or "last~N".',
  },
  command: COMMAND_FLAG,
  "max-chars": { type: "string", valueHint: "n", description: `Characters of the answer, about (default ${FAILURE_DEFAULT_MAX_CHARS}).` },
  json: { type: "boolean", description: "The derun_last_failure answer's fields, as JSON." },
  "state-root": STATE_ROOT_FLAG,
} as const satisfies FlagDefs;

export const usage = "[<id>] [options]";

export const examples = [
  "derun why                      # the newest failed command, wherever it ran",
  "derun why last --command 3     # command 3 of the newest session",
];

/** How to read left-out lines from the command line. */
const cliReadHint: ReadHint = (t, from, count) =>
  `derun cat ${t.sessionId}${t.command ? ` --command ${t.command.number}` : ""} --view text | sed -n '${from},${from + count - 1}p'`;

export async function run(flags: readonly string[]): Promise<ExitRequest> {
  const { values, positionals } = parseFlags(flags, args);
  const ref = oneSession("why", positionals, true);
  const command = commandSelector(values.command);
  if (command !== undefined && ref === undefined)
    throw usageError('--command needs the session it belongs to: derun why <id> --command N|"last"');
  const maxChars = values["max-chars"] === undefined ? FAILURE_DEFAULT_MAX_CHARS : positiveInteger("--max-chars", values["max-chars"]);
  // A reader of output and command lines: masked with the person's rules too, as cat and tail are.
  const reader = await openReader(values["state-root"], { redact: true });
  const session = ref === undefined ? undefined : await reader.session(ref);
  let t;
  try {
    t = await findFailure(reader.store, { session_id: session, command });
  } catch (error) {
    if (!isDerunError(error, "session_not_found") || session !== undefined) throw error;
    ui.info(error.message);
    return exitWith(1);
  }
  const report = await failureReport(t, maxChars, cliReadHint);
  ui.log(values.json ? JSON.stringify({ schema_version: SCHEMA_VERSION, ...report }) : renderFailure(report));
  return exitWith(0);
}
