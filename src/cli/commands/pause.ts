/**
 * `derun pause [--for <duration>]`: inside a recorded shell, stop recording until `derun resume` (or
 * the duration's end). What the terminal shows meanwhile never reaches the disk; the transcript
 * says where, and how many bytes, were left out (docs/privacy.md). Outside one: exit 2.
 */
import type { ExitRequest } from "../command.ts";
import { parseRetentionSeconds } from "../duration.ts";
import { parseFlags, type FlagDefs } from "../flags.ts";
import { shown, usageError } from "../usage.ts";
import { askRecorder, pausingArgs } from "./_pausing.ts";

export const args = {
  for: { type: "string", valueHint: "duration", description: "Resume by itself after this long (10m, 1h, 90s)." },
  ...pausingArgs,
} as const satisfies FlagDefs;

export const examples = ["derun pause            # until derun resume", "derun pause --for 10m  # resumes by itself"];

export async function run(flags: readonly string[]): Promise<ExitRequest> {
  const { values, positionals } = parseFlags(flags, args);
  if (positionals.length > 0) throw usageError(`derun pause takes no arguments (got ${shown(positionals[0]!)})`);
  const until = values.for === undefined ? undefined : new Date(Date.now() + forSeconds(values.for) * 1000);
  const { sessionId, exit } = await askRecorder("pause", values["state-root"], until);
  const how = until === undefined ? "until derun resume" : `until ${until.toISOString()} (or derun resume)`;
  process.stderr.write(`derun: recording of session ${sessionId} paused ${how}: nothing shown meanwhile is kept\n`);
  return exit;
}

/** `--for`'s value in whole seconds. */
function forSeconds(text: string): number {
  try {
    return parseRetentionSeconds(text);
  } catch (error) {
    throw usageError((error as Error).message.replace("invalid --retention", "invalid --for"));
  }
}
