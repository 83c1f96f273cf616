/** `derun run [flags] -- <command> [args...]`. */
import type { ArgsDef } from "citty";
import { openLogSink } from "../../core/log-sink.ts";
import { probeTerminal } from "../../core/probe.ts";
import { runSession } from "../../core/run/run-session.ts";
import { sweepAtStart } from "../../core/run/sweep-at-start.ts";
import { openFileStore, resolveStateRoot } from "../../core/file-store/index.ts";
import { loadTransport } from "../../plugins/loader.ts";
import { chooseTransport } from "../../plugins/select.ts";
import { exitWith, type CommandData, type ExitRequest } from "../command.ts";
import { parseRunArgs } from "../run-args.ts";

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
  const request = parseRunArgs(flags, data.command, process.env);
  const root = resolveStateRoot(process.env);
  const log = openLogSink(root, { component: "run" });
  const store = openFileStore({ root, log });
  await sweepAtStart(store, log, request.retentionSeconds);
  const result = await runSession(
    { ...request, cwd: process.cwd(), env: process.env },
    {
      store,
      log,
      probe: probeTerminal(),
      transports: { choose: chooseTransport, load: (spec) => loadTransport(spec), fallback: "pipe" },
      // One line when the recording is incomplete, after the command ended (never inside its output).
      notice: (line) => process.stderr.write(`derun: ${line}\n`),
    },
  );
  if (result.kind !== "failed") return result;
  process.stderr.write(`derun: ${result.message}\n`);
  return exitWith(result.exitCode);
}
