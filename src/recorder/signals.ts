/**
 * Signal relay: signals sent to derun reach the child, and a child's signal death becomes derun's.
 */
import { constants } from "node:os";
import type { RunningChild } from "../core/transport.ts";
import { ptr } from "bun:ffi";
import { libc, libcSignals } from "../os/libc.ts";
import { isTerminal } from "../tty/terminal.ts";

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
   * Called right before the child is spawned; resolves once the signals that reached derun until
   * then have been taken. Those reached no child (there was none), so {@link attach} delivers them
   * whatever `forwards` says: a Ctrl-C in derun's first milliseconds, which the terminal sent to
   * derun's group before the command was in it, is not lost as "the terminal sent it already".
   */
  childStarting(): Promise<void>;
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
export function relaySignals(signals: readonly NodeJS.Signals[], onSignal: (signal: NodeJS.Signals) => void = () => {}): SignalRelay {
  // A signal derun's caller ignores is not derun's to forward: it stays ignored, in derun as in the
  // command (see inheritedIgnored), as `exec` would leave it.
  const ignored = inheritedIgnored();
  signals = signals.filter((signal) => !ignored.includes(signal));
  let child: RunningChild | undefined;
  let forwards: (signal: NodeJS.Signals) => boolean = () => true;
  const pending: NodeJS.Signals[] = [];
  // How many of `pending` came before the child could exist.
  let beforeChild = 0;
  const deliver = (signal: NodeJS.Signals, unfiltered = false) => {
    if (!child || !(unfiltered || forwards(signal))) return;
    onSignal(signal);
    child.kill(signal);
  };
  const handlers = signals.map((signal) => {
    const handler = () => (child ? deliver(signal) : pending.push(signal));
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  return {
    async childStarting() {
      // One turn of the event loop: a signal the kernel gave derun a moment ago usually reaches its
      // handler by then (Bun may take longer: see ./signal-reached.ts).
      await new Promise((resolve) => setImmediate(resolve));
      beforeChild = pending.length;
    },
    attach(started, filter) {
      child = started;
      if (filter) forwards = filter;
      const early = beforeChild;
      pending.splice(0).forEach((signal, index) => deliver(signal, index < early));
    },
    dispose() {
      for (const [signal, handler] of handlers) process.removeListener(signal, handler);
      handlers.length = 0;
    },
  };
}

/** Bun ignores these itself before derun's first line runs: whether the caller did is unknowable. */
const SET_BY_BUN: ReadonlySet<string> = new Set(["SIGPIPE", "SIGXFSZ"]);
/** Where the handler is in a `struct sigaction` (first, on Linux and macOS), and SIG_IGN's value. */
const SIGACTION_BYTES = 256;
const SIG_DFL = 0n;
const SIG_IGN = 1n;
let ignoredAtStart: readonly NodeJS.Signals[] | undefined;

/**
 * The signals derun's caller left ignored (`nohup`, a script's `cmd &`, `trap '' INT`): an ignored
 * signal stays ignored across exec, and the command must start with it ignored as it would without
 * derun. Read on first use, which must come before derun installs any handler of its own (the
 * relay's, at the start of a run); the same list after that. Empty on Windows.
 *
 * With a terminal on fd 0, 1 or 2, Bun catches SIGINT and SIGTERM at start-up (to put the terminal
 * back), and what the caller left for them is lost. One case is still known: a shell without job
 * control starts `cmd &` with SIGINT and SIGQUIT ignored and stdin on /dev/null (POSIX), so a
 * script's background `derun run -- cmd &` finds SIGQUIT, which Bun leaves alone, ignored and stdin
 * not a terminal; SIGINT is then taken as ignored too, and ignored again in derun. (A caller's
 * `trap '' QUIT` alone, with stdin not a terminal, is taken for the same.)
 */
export function inheritedIgnored(): readonly NodeJS.Signals[] {
  if (ignoredAtStart) return ignoredAtStart;
  if (process.platform === "win32") return (ignoredAtStart = []);
  const action = new BigUint64Array(SIGACTION_BYTES / 8);
  const { sigaction } = libcSignals();
  const handlers = new Map<NodeJS.Signals, bigint>();
  ignoredAtStart = (Object.entries(constants.signals) as [NodeJS.Signals, number][]).flatMap(([name, signo]) => {
    if (SET_BY_BUN.has(name) || name === "SIGKILL" || name === "SIGSTOP") return [];
    action[0] = 0n;
    if (sigaction(signo, null, ptr(action)) !== 0) return [];
    handlers.set(name, action[0] ?? 0n);
    return action[0] === SIG_IGN ? [name] : [];
  });
  const caughtByBun = (signal: NodeJS.Signals) => ![SIG_DFL, SIG_IGN, undefined].includes(handlers.get(signal));
  if (ignoredAtStart.includes("SIGQUIT") && caughtByBun("SIGINT") && !isTerminal(0)) {
    ignoredAtStart = [...ignoredAtStart, "SIGINT"];
    ignoreInDerun(constants.signals.SIGINT);
  }
  return ignoredAtStart;
}

/**
 * Puts SIG_IGN back on a signal Bun caught at start-up: derun then does not die of it (Bun's handler
 * would put the terminal back and re-raise it), as the caller meant.
 */
function ignoreInDerun(signo: number): void {
  const action = new BigUint64Array(SIGACTION_BYTES / 8);
  action[0] = SIG_IGN;
  libcSignals().sigaction(signo, ptr(action), null);
}

/** Signals whose default action also writes a core file. */
const DUMPS_CORE: ReadonlySet<string> = new Set([
  "SIGQUIT",
  "SIGILL",
  "SIGTRAP",
  "SIGABRT",
  "SIGBUS",
  "SIGFPE",
  "SIGSEGV",
  "SIGSYS",
  "SIGXCPU",
  "SIGXFSZ",
]);
const RLIMIT_CORE = 4; // Linux and macOS
const PR_SET_DUMPABLE = 4;

/**
 * derun dies of a core-dumping signal only to tell its parent how the command ended: a core of
 * derun's (gigabytes of a runtime's address space) would take the place of the command's, the
 * one the user wanted (`core_pattern` = `core`). A core limit of 0, and on Linux not dumpable
 * at all (which a `core_pattern` that pipes to a collector also obeys).
 */
function noCoreOfOurOwn(): void {
  const c = libcSignals();
  c.setrlimit(RLIMIT_CORE, ptr(new BigUint64Array(2)));
  if (process.platform === "linux") (c as { prctl?: (...args: number[]) => number }).prctl?.(PR_SET_DUMPABLE, 0, 0, 0, 0);
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
    if (process.platform !== "win32") {
      if (DUMPS_CORE.has(signal)) noCoreOfOurOwn();
      libc().signal(signo, null);
    }
    // By number: Bun knows no name for some (SIGSTKFLT, SIGPWR: "Unknown signal").
    process.kill(process.pid, signo);
    // A signal sent to our own multi-threaded process may land on another thread a moment later:
    // give it that moment rather than racing it with exit().
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
  } catch {
    // Not deliverable on this platform: fall through to the numeric exit status.
  }
  process.exit(128 + signo);
}
