/**
 * What `derun run` and `derun shell` share: open the state root, run the session through the
 * built-in and third-party transports, sweep once the command runs, and turn its result into
 * derun's own exit.
 */
import { openFileStore } from "../core/file-store/index.ts";
import { openLogSink } from "../core/log-sink.ts";
import { probeTerminal } from "../core/probe.ts";
import { runSession, type RunRequest } from "../core/run/run-session.ts";
import { inheritedIgnored } from "../core/run/signals.ts";
import { sweepAtStart } from "../core/run/sweep-at-start.ts";
import { visible } from "../core/quote.ts";
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
  // it never delays the command's start, and the run waits for it so that it is not cut short.
  const sweep = new SweepBesideRun();
  const result = await runSession(
    { ...run, cwd: process.cwd(), env: run.env ?? process.env },
    {
      store,
      log,
      probe: probeTerminal(),
      transports: { choose: chooseTransport, load: (spec) => loadTransport(spec), fallback: "pipe" },
      // One line when the recording is incomplete, after the command ended (never inside its output).
      notice: (line) => process.stderr.write(`derun: ${visible(line)}\n`),
      onStarted: () => sweep.start(() => sweepAtStart(store, log, request.retentionSeconds)),
    },
  );
  await sweep.finish();
  if (result.kind !== "failed") return result;
  process.stderr.write(`derun: ${visible(result.message)}\n`);
  return exitWith(result.exitCode);
}

/**
 * Signals that would end derun with their own status while it finishes the sweep; not one derun's
 * caller ignores (a listener removed leaves the default action, and derun would die of it).
 */
const endingSignals = (): NodeJS.Signals[] =>
  (process.platform === "win32" ? (["SIGINT"] as const) : (["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"] as const)).filter(
    (signal) => !inheritedIgnored().includes(signal),
  );

/**
 * The sweep beside the running command. Once the command has ended, a signal (Ctrl-C, a kill) cuts
 * the sweep short instead of replacing the command's exit status with derun's death by that signal:
 * the listeners go in with the sweep, so there is no moment between the run's own signal handling
 * and the wait without one. A sweep cut short only leaves expired sessions for the next one.
 */
class SweepBesideRun {
  #sweep: Promise<void> = Promise.resolve();
  readonly #signalled = Promise.withResolvers<void>();
  readonly #onSignal = () => this.#signalled.resolve();

  start(sweep: () => Promise<void>): void {
    for (const signal of endingSignals()) process.on(signal, this.#onSignal);
    this.#sweep = sweep();
  }

  async finish(): Promise<void> {
    try {
      await Promise.race([this.#sweep, this.#signalled.promise]);
    } finally {
      for (const signal of endingSignals()) process.removeListener(signal, this.#onSignal);
    }
  }
}
