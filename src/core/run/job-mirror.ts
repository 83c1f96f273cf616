/**
 * derun stands in for the command before the user's shell: when the command stops (Ctrl-Z, a read
 * in the background, a SIGSTOP), derun gives the terminal back and stops the same way, so the shell
 * shows the job as stopped; when the shell continues derun (`fg`, `bg`), derun continues the
 * command in the foreground of its terminal, taking the user's terminal back, or in its background.
 * As util-linux `script` does for a child's SIGSTOP, for every kind of stop.
 */
import type { Logger } from "../log.ts";
import type { RunningChild } from "../transport.ts";
import type { OutputPath } from "./output-path.ts";
import type { InputForwarder } from "./user-input.ts";
import type { UserTerminal } from "./user-terminal.ts";

/** How often derun looks whether a `fg` made it the foreground (the shell sends no SIGCONT to a running job). */
const FOREGROUND_POLL_MS = 50;
/** Stops a shell reports as the job's own ("Stopped", "Stopped (tty input)"...): derun takes the same. */
const JOB_STOPS = new Set<NodeJS.Signals>(["SIGTSTP", "SIGTTIN", "SIGTTOU"]);

export interface JobMirrorDeps {
  readonly terminal: UserTerminal;
  readonly input: InputForwarder | undefined;
  readonly output: OutputPath;
  /** Gives the child derun's window size now (it may have changed while derun was stopped). */
  readonly syncSize: () => void;
  readonly log: Logger;
  readonly sessionId: string;
}

/** Mirrors the child's stops until the returned function is called. Starts `input` when derun may read its terminal. */
export function mirrorJob(child: RunningChild, deps: JobMirrorDeps): () => void {
  const { terminal, input, output, log, sessionId } = deps;
  const job = child.job;
  if (job === undefined) {
    input?.start();
    return () => {};
  }
  let state: "foreground" | "background" | "stopped" = terminal.inForeground ? "foreground" : "background";
  let poll: ReturnType<typeof setInterval> | undefined;
  let active = true;

  const toForeground = () => {
    clearInterval(poll);
    poll = undefined;
    // Keys derun read but did not forward came before those the terminal still holds.
    const kept = input?.takeKept();
    const typedAhead = kept?.length ? Buffer.concat([kept, terminal.takeOver()]) : terminal.takeOver();
    deps.syncSize();
    if (state === "stopped" || state === "background") job.resume(true, typedAhead);
    state = "foreground";
    input?.start();
  };
  const toBackground = () => {
    if (state === "stopped") job.resume(false);
    state = "background";
    poll ??= setInterval(() => terminal.inForeground && toForeground(), FOREGROUND_POLL_MS);
  };
  const continueNow = () => {
    continuing = undefined;
    if (!active || state === "foreground") return;
    if (terminal.inForeground) toForeground();
    else toBackground();
  };
  // A shell's `kill %1` sends a stopped job SIGTERM and then SIGCONT, and Bun may hand derun the
  // SIGCONT first (each signal is queued by the thread that caught it). Continuing the child a turn
  // of the event loop later lets a signal that came with the SIGCONT reach it first, pending while
  // it is stopped, so it acts the moment the child continues, as without derun; continued at once,
  // a child that stops again at once (a read in the background) would keep it pending for good.
  let continuing: ReturnType<typeof setTimeout> | undefined;
  const onContinue = () => {
    continuing ??= setTimeout(() => setImmediate(continueNow), 0);
  };
  const onStop = async (signal: NodeJS.Signals) => {
    if (!active || state === "stopped") return;
    state = "stopped";
    clearInterval(poll);
    poll = undefined;
    log.log("info", "child_stopped", { session_id: sessionId, signal });
    await input?.stop();
    // What the child wrote before stopping reaches the screen before the cooked terminal does.
    output.drain();
    terminal.restore();
    // A job-control stop is dropped for an orphaned group: then (and for SIGSTOP) derun takes SIGSTOP.
    if (terminal.jobControl && JOB_STOPS.has(signal)) process.kill(0, signal);
    else process.kill(process.pid, "SIGSTOP");
  };

  // Keys typed from the moment of the stop are the shell's: reading stops before the output's drain.
  job.onStop(
    (signal) => void onStop(signal),
    () => active && void input?.stop(),
  );
  process.on("SIGCONT", onContinue);
  if (state === "foreground") input?.start();
  else toBackground();
  return () => {
    active = false;
    clearInterval(poll);
    clearTimeout(continuing);
    process.removeListener("SIGCONT", onContinue);
  };
}
