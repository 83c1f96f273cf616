/**
 * `derun wait [<id>]`: block until the next shell command or session ends (woken by file-change
 * notification, as derun_wait_command is), then print what ended and its last lines. Exit 0 when
 * something ended, 1 on the timeout, 2 on an error.
 */
import { WAIT_MAX_TIMEOUT_MS } from "../../tools/index.ts";
import waitCommand from "../../tools/wait-command.ts";
import { exitWith, type ExitRequest } from "../command.ts";
import { parseDuration } from "../duration.ts";
import { parseFlags, type FlagDefs } from "../flags.ts";
import { openReader } from "../reader.ts";
import { STATE_ROOT_FLAG } from "../state-root.ts";
import { ui } from "../ui.ts";
import { oneSession, SESSION_ARG } from "./_session-arg.ts";

export const args = {
  id: {
    ...SESSION_ARG,
    required: false,
    description: 'Only this session\'s commands (or its end): an id, "last" or "last~N" (default: any session).',
  },
  failed: { type: "boolean", description: "Only a command or session that fails (non-zero exit, signal)." },
  timeout: {
    type: "string",
    valueHint: "duration",
    description: "Give up after this long: 500ms, 15s, 1m, or a number of milliseconds (default 30s, at most 60s).",
  },
  json: { type: "boolean", description: "The derun_wait_command answer (the same fields), as JSON." },
  "state-root": STATE_ROOT_FLAG,
} as const satisfies FlagDefs;

/**
 * A bare number stays milliseconds, as before units were taken. Longer than one wait gives is
 * refused, not clamped: a script that asked for longer would take a timeout for "nothing ended".
 */
const TIMEOUT = {
  unit: "ms",
  max: WAIT_MAX_TIMEOUT_MS,
  tooLong: `must be at most 60s (${WAIT_MAX_TIMEOUT_MS} ms); wait again for longer`,
  examples: "500ms, 15s or 1m",
} as const;

export const usage = "[<id>] [options]";

export const examples = [
  "derun wait --failed && derun why   # the next failure, explained",
  "derun wait last --timeout 60s   # the next command of the newest session",
];

export async function run(flags: readonly string[]): Promise<ExitRequest> {
  const { values, positionals } = parseFlags(flags, args);
  const ref = oneSession("wait", positionals, true);
  const timeout = values.timeout === undefined ? undefined : parseDuration("--timeout", values.timeout, TIMEOUT);
  // A reader of output and command lines: masked with the person's rules too, as cat and tail are.
  const reader = await openReader(values["state-root"], { redact: true });
  const session = ref === undefined ? undefined : await reader.session(ref);
  const answer = await reader.ask(waitCommand, { session_id: session, failed_only: values.failed || undefined, timeout_ms: timeout });
  ui.log(values.json ? JSON.stringify(answer) : waitCommand.render(answer));
  return exitWith(answer.timed_out ? 1 : 0);
}
