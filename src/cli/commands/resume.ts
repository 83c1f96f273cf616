/** `derun resume`: inside a recorded shell paused by `derun pause`, record again. Outside one: exit 2. */
import type { ExitRequest } from "../command.ts";
import { parseFlags } from "../flags.ts";
import { shown, usageError } from "../usage.ts";
import { askRecorder, pausingArgs } from "./_pausing.ts";

export const args = pausingArgs;
export const examples = ["derun resume"];

export async function run(flags: readonly string[]): Promise<ExitRequest> {
  const { values, positionals } = parseFlags(flags, args);
  if (positionals.length > 0) throw usageError(`derun resume takes no arguments (got ${shown(positionals[0]!)})`);
  const { sessionId, exit } = await askRecorder("resume", values["state-root"]);
  process.stderr.write(`derun: recording of session ${sessionId} resumed\n`);
  return exit;
}
