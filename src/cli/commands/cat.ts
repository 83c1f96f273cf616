/** `derun cat <id>`: a session's output (or one command's), all of it: what is recorded so far, for a running one. */
import { exitWith, type ExitRequest } from "../command.ts";
import { parseFlags, type FlagDefs } from "../flags.ts";
import { openReader } from "../reader.ts";
import { STATE_ROOT_FLAG } from "../state-root.ts";
import { NO_REDACT_FLAG } from "../redact-flag.ts";
import { COMMAND_FLAG, commandSelector, oneSession, SESSION_ARG } from "./_session-arg.ts";
import { DEFAULT_VIEW, openTarget, printAll, VIEW_FLAG_HELP, VIEWS } from "./_views.ts";

export const args = {
  id: SESSION_ARG,
  view: { type: "enum", options: VIEWS, description: VIEW_FLAG_HELP },
  channel: {
    type: "enum",
    options: ["stdout", "stderr"],
    description: "Only what the command wrote to this stream (pipe sessions keep them apart).",
  },
  command: COMMAND_FLAG,
  "no-redact": NO_REDACT_FLAG,
  "state-root": STATE_ROOT_FLAG,
} as const satisfies FlagDefs;

export const examples = [
  "derun cat last                          # what the newest session printed, as text",
  "derun cat last --channel stderr         # only its stderr (pipe sessions)",
  "derun cat last --view screen            # the terminal as the session left it",
  "derun cat last --command last           # the last command typed in a derun shell",
  "derun cat build --view raw > build.log  # the exact bytes, colours and all",
];

export async function run(flags: readonly string[]): Promise<ExitRequest> {
  const { values, positionals } = parseFlags(flags, args);
  const reader = await openReader(values["state-root"], { redact: !values["no-redact"] });
  const view = values.view ?? DEFAULT_VIEW;
  const t = await openTarget(reader, oneSession("cat", positionals), view, values.channel, commandSelector(values.command));
  await printAll(reader, t, view, values.channel);
  return exitWith(0);
}
