/**
 * Signal relay: signals sent to derun reach the child, and a child's signal death becomes derun's.
 */
import { constants } from "node:os";
import type { RunningChild } from "../transport.ts";
import { libc } from "../libc.ts";

/**
 * Signals a user or a supervisor sends to derun that belong to the command. Any signal whose default
 * action ends a process is here: one derun did not catch would kill it with the terminal still raw
 * and the command orphaned.
 */
export const FORWARDED_SIGNALS = [
  "SIGTERM",
  "SIGHUP",
  "SIGINT",
  "SIGQUIT",
  "SIGUSR1",
  "SIGUSR2",
  "SIGALRM",
] as const satisfies readonly NodeJS.Signals[];

/** The signals a terminal itself sends to its foreground process group (keys, hang-up). */
export const TERMINAL_SIGNALS: ReadonlySet<NodeJS.Signals> = new Set(["SIGINT", "SIGQUIT", "SIGHUP"]);

export interface SignalRelay {
  /**
   * Start delivering to `child`, first any signals that arrived while it was starting. `forwards`
   * decides per signal (default: all), e.g. to skip what the terminal already sent the child.
   */
  attach(child: RunningChild, forwards?: (signal: NodeJS.Signals) => boolean): void;
  /** Remove derun's handlers. Idempotent. */
  dispose(): void;
}

/**
 * Install handlers for `signals` now, before the child starts: a signal in the start-up window is
 * held and delivered once the child exists instead of killing derun and orphaning the child.
 * `onSignal` sees every forwarded signal (for logging).
 */
export function relaySignals(
  signals: readonly NodeJS.Signals[],
  onSignal: (signal: NodeJS.Signals) => void = () => {},
): SignalRelay {
  let child: RunningChild | undefined;
  let forwards: (signal: NodeJS.Signals) => boolean = () => true;
  const pending: NodeJS.Signals[] = [];
  const deliver = (signal: NodeJS.Signals) => {
    if (!child || !forwards(signal)) return;
    onSignal(signal);
    child.kill(signal);
  };
  const handlers = signals.map((signal) => {
    const handler = () => (child ? deliver(signal) : pending.push(signal));
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  return {
    attach(started, filter) {
      child = started;
      if (filter) forwards = filter;
      for (const signal of pending.splice(0)) deliver(signal);
    },
    dispose() {
      for (const [signal, handler] of handlers) process.removeListener(signal, handler);
      handlers.length = 0;
    },
  };
}

/**
 * Terminate derun by `signal`, so its parent sees exactly the child's death (a shell prints
 * "Terminated", `$?` is 128+n, WIFSIGNALED holds). Falls back to exit 128+n if the signal does not
 * end the process (ignored or blocked by our own parent).
 */
export function dieBySignal(signal: NodeJS.Signals): never {
  process.removeAllListeners(signal);
  const signo = constants.signals[signal] ?? 0;
  try {
    // The runtime itself may ignore a signal (Bun ignores SIGPIPE): put its default action back,
    // or the kill below does nothing and derun would not die of it.
    if (process.platform !== "win32") libc().signal(signo, null);
    process.kill(process.pid, signal);
    // A signal sent to our own multi-threaded process may land on another thread a moment later:
    // give it that moment rather than racing it with exit().
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
  } catch {
    // Not deliverable on this platform: fall through to the numeric exit status.
  }
  process.exit(128 + signo);
}
