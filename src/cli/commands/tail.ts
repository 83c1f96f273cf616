/**
 * `derun tail <id>`: the last lines of a session's output (or of one command's) in a view; `-f`
 * then follows the live session, woken by the same file-change wait as derun_wait_output, and exits
 * when it ends with its exit status (a signal as 128+n), or when the command ends, with the command's.
 */
import { exitWith, type ExitRequest } from "../command.ts";
import { parseFlags, type FlagDefs } from "../flags.ts";
import { openReader } from "../reader.ts";
import { STATE_ROOT_FLAG } from "../state-root.ts";
import { NO_REDACT_FLAG } from "../redact-flag.ts";
import { shown, usageError } from "../usage.ts";
import { COMMAND_FLAG, commandSelector, oneSession, SESSION_ARG } from "./_session-arg.ts";
import { printTail } from "./_tail-views.ts";
import { DEFAULT_VIEW, openTarget, VIEW_FLAG_HELP, VIEWS } from "./_views.ts";

export const args = {
  id: SESSION_ARG,
  lines: {
    type: "string",
    alias: "n",
    valueHint: "n",
    description: "How many lines of the view from the end (default 10; 0 with -f: only what comes next).",
  },
  follow: {
    type: "boolean",
    alias: "f",
    description: "Keep printing as the session writes (text: each line once complete), until it ends; exit with its status.",
  },
  view: { type: "enum", options: VIEWS, description: VIEW_FLAG_HELP },
  command: COMMAND_FLAG,
  "no-redact": NO_REDACT_FLAG,
  "state-root": STATE_ROOT_FLAG,
} as const satisfies FlagDefs;

export const examples = [
  "derun tail last                          # the last 10 lines, as text",
  "derun tail -n 50 last~1                  # the last 50 lines of the session before it",
  "derun tail -f last                       # follow it until it ends, then exit with its status",
  "derun tail -n 5 --view screen last       # the bottom of the terminal it left",
  "derun tail -f --view raw last            # follow the exact bytes (colours replay)",
  "derun tail -f --command last shell       # follow the command running in a derun shell",
];

const DEFAULT_LINES = 10;

export async function run(flags: readonly string[]): Promise<ExitRequest> {
  const { values, positionals } = parseFlags(flags, args);
  const lines = values.lines === undefined ? DEFAULT_LINES : /^[0-9]{1,9}$/.test(values.lines) ? Number(values.lines) : NaN;
  if (Number.isNaN(lines)) throw usageError(`option "--lines" takes a whole number (got ${shown(values.lines!)})`);
  const view = values.view ?? DEFAULT_VIEW;
  if (view === "screen" && values.follow) throw usageError("-f follows --view text or raw (a screen is the state at the end)");
  const reader = await openReader(values["state-root"], { redact: !values["no-redact"] });
  const t = await openTarget(reader, oneSession("tail", positionals), view, undefined, commandSelector(values.command));
  return exitWith(await printTail(reader, t, view, { lines, follow: values.follow ?? false }));
}
