/**
 * What `derun run` and `derun shell` share: open the state root, run the session through the
 * built-in and third-party transports, sweep once the command runs, and turn its result into
 * derun's own exit.
 */
import { openFileStore } from "../core/file-store/index.ts";
import { openLogSink } from "../core/log-sink.ts";
import { probeTerminal } from "../core/probe.ts";
import { runSession, type RunRequest } from "../core/run/run-session.ts";
import { sweepAtStart } from "../core/run/sweep-at-start.ts";
import { loadTransport } from "../plugins/loader.ts";
import { chooseTransport } from "../plugins/select.ts";
import { exitWith, type ExitRequest } from "./command.ts";
import { stateRootFrom } from "./state-root.ts";

export async function startRun(
  request: Omit<RunRequest, "cwd" | "env"> & { readonly env?: RunRequest["env"]; readonly stateRoot?: string },
): Promise<ExitRequest> {
  const { stateRoot, ...run } = request;
  const root = stateRootFrom(stateRoot);
  const log = openLogSink(root, { component: "run" });
  const store = openFileStore({ root, log });
  // The sweep reads every session directory (at most once a minute): started once the command runs,
  // it never delays the command's start, and the run waits for it so that it is never cut short.
  let sweep: Promise<void> = Promise.resolve();
  const result = await runSession(
    { ...run, cwd: process.cwd(), env: run.env ?? process.env },
    {
      store,
      log,
      probe: probeTerminal(),
      transports: { choose: chooseTransport, load: (spec) => loadTransport(spec), fallback: "pipe" },
      // One line when the recording is incomplete, after the command ended (never inside its output).
      notice: (line) => process.stderr.write(`derun: ${line}\n`),
      onStarted: () => (sweep = sweepAtStart(store, log, request.retentionSeconds)),
    },
  );
  await sweep;
  if (result.kind !== "failed") return result;
  process.stderr.write(`derun: ${result.message}\n`);
  return exitWith(result.exitCode);
}
