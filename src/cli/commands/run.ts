/** `derun run [flags] -- <command> [args...]`. */
import type { ArgsDef } from "citty";
import type { CommandData, ExitRequest } from "../command.ts";
import { parseRunArgs } from "../run-args.ts";
import { startRun } from "../start-run.ts";

/** For `--help` only: parsing is strict and done by parseRunArgs. */
export const args = {
  "session-id": {
    type: "string",
    description: "Record under this id (letters, digits, . _ -; at most 128). Default: a new ULID.",
  },
  retention: {
    type: "string",
    description: "Keep the transcript this long after the command ends, in whole seconds: 3600, 90m, 24h. Default: 24h.",
  },
  transport: {
    type: "string",
    description: "posix-pty, windows-conpty, pipe, or a plugin's path or package. Default: a PTY when stdin, stdout and stderr are terminals, else pipe. Env: DERUN_TRANSPORT.",
  },
} as const satisfies ArgsDef;

export async function run(flags: readonly string[], data: CommandData): Promise<ExitRequest> {
  return startRun(parseRunArgs(flags, data.command, process.env));
}
