/** `derun cat <id>`: a session's output, all of it (what is recorded so far, for a running one). */
import { exitWith, type ExitRequest } from "../command.ts";
import { parseFlags, type FlagDefs } from "../flags.ts";
import { openReader } from "../reader.ts";
import { STATE_ROOT_FLAG } from "../state-root.ts";
import { usageError } from "../usage.ts";
import { oneSession, SESSION_ARG } from "./_session-arg.ts";
import { DEFAULT_VIEW, printView, VIEWS } from "./_views.ts";

export const args = {
  id: SESSION_ARG,
  view: { type: "enum", options: VIEWS, description: `raw: the exact bytes, colours and all (default: ${DEFAULT_VIEW}).` },
  channel: { type: "enum", options: ["stdout", "stderr"], description: "Only what the command wrote to this stream (pipe sessions keep them apart)." },
  "state-root": STATE_ROOT_FLAG,
} as const satisfies FlagDefs;

export const examples = ["derun cat last", "derun cat last --channel stderr", "derun cat 01JCZ3T5M7Q8W2E4R6T8Y0U2I4 --view raw > build.log"];

export async function run(flags: readonly string[]): Promise<ExitRequest> {
  const { values, positionals } = parseFlags(flags, args);
  const reader = openReader(values["state-root"]);
  const sessionId = await reader.session(oneSession("cat", positionals));
  // A terminal merges the streams: asking for one of them there would print nothing, silently.
  if (values.channel !== undefined && (await reader.store.read(sessionId, 0, 1)).slices[0]?.channel === "pty") {
    throw usageError(`session ${sessionId} was recorded on a terminal: its output is one stream, without --channel`);
  }
  await printView[values.view ?? DEFAULT_VIEW](reader, { sessionId, channel: values.channel });
  return exitWith(0);
}
