/**
 * `derun tail <id>`: the last lines of a session's output (counted by LF bytes from the end, read
 * backward in blocks); `-f` then follows the live session, woken by the same file-change wait as
 * derun_wait_output, and exits when it ends with its exit status (a signal as 128+n).
 */
import { constants } from "node:os";
import type { SessionInfo } from "../../core/store.ts";
import { rawTailStart } from "../../queries/raw-output.ts";
import { exitWith, type ExitRequest } from "../command.ts";
import { parseFlags, type FlagDefs } from "../flags.ts";
import { openReader } from "../reader.ts";
import { STATE_ROOT_FLAG } from "../state-root.ts";
import { shown, usageError } from "../usage.ts";
import { oneSession, SESSION_ARG } from "./_session-arg.ts";
import { DEFAULT_VIEW, printView, VIEWS } from "./_views.ts";

export const args = {
  id: SESSION_ARG,
  lines: { type: "string", alias: "n", valueHint: "n", description: "How many lines from the end (default 10; 0 with -f: only what comes next)." },
  follow: { type: "boolean", alias: "f", description: "Keep printing as the session writes, until it ends; exit with its status." },
  view: { type: "enum", options: VIEWS, description: `raw: the exact bytes (default: ${DEFAULT_VIEW}).` },
  "state-root": STATE_ROOT_FLAG,
} as const satisfies FlagDefs;

export const examples = ["derun tail last", "derun tail -n 50 last~1", "derun tail -f last        # until it ends, then exit with its status"];

const DEFAULT_LINES = 10;

/** The status `derun run` ended (or will end) with, for a shell: the code, 128+n for signal n, 1 when it failed. */
function sessionStatus(info: SessionInfo): number {
  if (info.state === "exited") return info.final?.exit_code ?? 0;
  if (info.state === "signaled") return 128 + (constants.signals[info.final?.signal as NodeJS.Signals] ?? 0);
  return info.state === "failed" ? 1 : 0;
}

export async function run(flags: readonly string[]): Promise<ExitRequest> {
  const { values, positionals } = parseFlags(flags, args);
  const lines = values.lines === undefined ? DEFAULT_LINES : /^[0-9]{1,9}$/.test(values.lines) ? Number(values.lines) : NaN;
  if (Number.isNaN(lines)) throw usageError(`option "--lines" takes a whole number (got ${shown(values.lines!)})`);
  const reader = openReader(values["state-root"]);
  const sessionId = await reader.session(oneSession("tail", positionals));
  const from = await rawTailStart(reader.store, sessionId, lines);
  await printView[values.view ?? DEFAULT_VIEW](reader, { sessionId, from, follow: values.follow });
  return exitWith(values.follow ? sessionStatus(await reader.store.get(sessionId)) : 0);
}
