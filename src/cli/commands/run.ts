/** `derun run [flags] -- <command> [args...]`. */
import type { ArgsDef, CommandDef } from "citty";
import { openLogSink } from "../../core/log-sink.ts";
import { probeTerminal } from "../../core/probe.ts";
import { runSession } from "../../core/run/run-session.ts";
import { sweepAtStart } from "../../core/run/sweep-at-start.ts";
import { openStore, resolveStateRoot } from "../../core/file-store/index.ts";
import type { CommandData, CommandOutcome } from "../main.ts";
import { parseRunArgs } from "../run-args.ts";
import { commandMeta } from "./meta.ts";

/** For `--help` only: parsing is strict and done by parseRunArgs. */
const args = {
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

export const usage: CommandDef<typeof args> = { meta: commandMeta.run, args };

export async function run(flags: readonly string[], data: CommandData): Promise<CommandOutcome> {
  const request = parseRunArgs(flags, data.command, process.env);
  const root = resolveStateRoot(process.env);
  const log = openLogSink(root, { component: "run" });
  const store = openStore({ root, log });
  await sweepAtStart(store, log);
  const result = await runSession(
    { ...request, cwd: process.cwd(), env: process.env },
    { store, log, probe: probeTerminal() },
  );
  switch (result.kind) {
    case "exited":
      return { exitCode: result.code };
    case "signaled":
      return { signal: result.signal };
    case "failed":
      process.stderr.write(`derun: ${result.message}\n`);
      return { exitCode: result.exitCode };
  }
}
