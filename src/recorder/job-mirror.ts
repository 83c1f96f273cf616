/**
 * derun stands in for the command before the user's shell: when the command stops (Ctrl-Z, a read
 * in the background, a SIGSTOP), derun gives the terminal back and stops the same way, so the shell
 * shows the job as stopped; when the shell continues derun (`fg`, `bg`), derun continues the
 * command in the foreground of its terminal, taking the user's terminal back, or in its background.
 * As util-linux `script` does for a child's SIGSTOP, for every kind of stop.
 */
import type { Logger } from "../core/log.ts";
import type { RunningChild } from "../core/transport.ts";
import type { OutputPath } from "./output-path.ts";
import type { InputForwarder } from "./user-input.ts";
import type { UserTerminal } from "./user-terminal.ts";

/** How often derun looks whether a `fg` made it the foreground (the shell sends no SIGCONT to a running job). */
const FOREGROUND_POLL_MS = 50;
/**
 * How long after derun continued the command a signal forwarded to it still counts as one that came
 * with derun's SIGCONT (see onStop): Bun may hand derun a signal caught on another thread well after.
 */
const WITH_CONTINUE_MS = 500;
/** How often a stop within that window looks whether such a signal has come. */
const SIGNAL_LOOK_MS = 5;
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

export interface JobMirror {
  /** derun forwarded a signal to the command. */
  forwarded(): void;
  /** Stop mirroring. */
  stop(): void;
}

/** Mirrors the child's stops until stopped. Starts `input` when derun may read its terminal. */
export function mirrorJob(child: RunningChild, deps: JobMirrorDeps): JobMirror {
  const { terminal, input, output, log, sessionId } = deps;
  const job = child.job;
  if (job === undefined) {
    input?.start();
    return { forwarded: () => {}, stop: () => {} };
  }
  // When derun last continued the command, and whether it forwarded a signal since.
  let continuedAt = Number.NEGATIVE_INFINITY;
  let forwardedSince = false;
  let state: "foreground" | "background" | "stopped" = terminal.inForeground ? "foreground" : "background";
  let poll: ReturnType<typeof setInterval> | undefined;
  let active = true;

  const toForeground = () => {
    clearInterval(poll);
    poll = undefined;
    // Keys derun read but did not forward came before those the terminal still holds.
    const kept = input?.takeKept();
    const typedAhead = kept?.length ? Buffer.concat([kept, terminal.takeOver()]) : terminal.takeOver();
    // derun's terminal is raw again: the reader thread may write small chunks to it itself again.
    output.terminalTaken();
    deps.syncSize();
    // From the background the command is running: it takes the foreground without a SIGCONT, as a
    // shell's `fg` of a running job sends none.
    if (state === "stopped" || state === "background") resume(true, typedAhead, terminal.modes, state === "stopped");
    state = "foreground";
    input?.start();
  };
  const resume = (foreground: boolean, typedAhead?: Uint8Array, userModes?: Uint8Array, continues = true) => {
    continuedAt = performance.now();
    forwardedSince = false;
    job.resume(foreground, typedAhead, userModes, continues);
  };
  const toBackground = () => {
    if (state === "stopped") resume(false);
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
    // Stopped again in the background just after derun continued it: a signal that came with
    // derun's SIGCONT may not have been handed to derun yet (on a loaded machine Bun's signal thread
    // can lag), and once derun stops itself it never would be, leaving the job stopped for good. So
    // derun waits for it, within the same window, before it stops. (In the foreground a stop is the
    // user's Ctrl-Z, which must not wait.)
    const continued = continuedAt;
    while (state === "background" && !forwardedSince && performance.now() - continuedAt < WITH_CONTINUE_MS) {
      await Bun.sleep(SIGNAL_LOOK_MS);
    }
    // Meanwhile derun may have been told to go on (a `fg`) and continued the command itself.
    if (!active || continuedAt !== continued) return;
    // Stopped again just after derun continued it, with a signal forwarded meanwhile: that signal
    // came with derun's SIGCONT (`kill %1`) but reached the command only after it had stopped again
    // (a read in the background), and waits there. Continued once more, the command takes it, as
    // it would have without derun; a command that lives on stops again, and derun with it.
    if (forwardedSince && performance.now() - continuedAt < WITH_CONTINUE_MS) {
      log.log("info", "child_continued_for_signal", { session_id: sessionId, signal });
      resume(state === "foreground");
      if (state === "foreground") input?.start();
      return;
    }
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
  return {
    forwarded: () => void (forwardedSince = true),
    stop: () => {
      active = false;
      clearInterval(poll);
      clearTimeout(continuing);
      process.removeListener("SIGCONT", onContinue);
    },
  };
}
