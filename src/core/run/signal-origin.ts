/**
 * Who sent a signal: a terminal (the kernel, for Ctrl-C, Ctrl-\ or a hang-up, to its whole
 * foreground group) or a process calling kill(). Bun's `process.on` passes no `siginfo`, so a small
 * handler in C (TinyCC, bun:ffi `cc`, as the PTY's session leader) goes in front of Bun's: it counts
 * the signals kill() sent (any `si_code` but the kernel's), then calls Bun's handler as before.
 * `pipe` mode needs it: the command shares derun's process group, so a terminal's signal reached it
 * already, while a `kill -INT <derun pid>` must be forwarded. Linux only (macOS does not mark a
 * terminal's signals the same way); where it cannot be had, {@link watchSignalOrigins} says so.
 */
import { cc } from "bun:ffi";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { constants, tmpdir } from "node:os";
import { join } from "node:path";

const SOURCE = String.raw`
typedef struct { void *handler; unsigned long mask[16]; int flags; void *restorer; } action_t;
typedef struct { int signo, error, code; } info_t;
extern int sigaction(int, const action_t *, action_t *);
#define SA_SIGINFO_ 4
#define SI_KERNEL_ 0x80
#define SLOTS 65

static action_t previous[SLOTS];
static int wrapped[SLOTS];
static volatile unsigned int sent_by_kill[SLOTS];

static void on_signal(int sig, info_t *info, void *context) {
  void *handler;
  if (sig <= 0 || sig >= SLOTS) return;
  if (info == 0 || info->code != SI_KERNEL_) sent_by_kill[sig]++;
  handler = previous[sig].handler;
  if (previous[sig].flags & SA_SIGINFO_) ((void (*)(int, info_t *, void *))handler)(sig, info, context);
  else if (handler != (void *)0 && handler != (void *)1) ((void (*)(int))handler)(sig);
}

/* Puts on_signal in front of the handler now installed (Bun's). 0, or -1. */
int derun_watch_origin(int sig) {
  action_t action;
  if (sig <= 0 || sig >= SLOTS || wrapped[sig]) return -1;
  if (sigaction(sig, 0, &previous[sig]) != 0) return -1;
  action = previous[sig];
  action.handler = (void *)on_signal;
  action.flags |= SA_SIGINFO_;
  if (sigaction(sig, &action, 0) != 0) return -1;
  wrapped[sig] = 1;
  return 0;
}

/* Puts the handler back, if on_signal is still the one installed. */
void derun_unwatch_origin(int sig) {
  action_t now;
  if (sig <= 0 || sig >= SLOTS || !wrapped[sig]) return;
  wrapped[sig] = 0;
  if (sigaction(sig, 0, &now) == 0 && now.handler == (void *)on_signal) sigaction(sig, &previous[sig], 0);
}

unsigned int derun_sent_by_kill(int sig) {
  return sig > 0 && sig < SLOTS ? sent_by_kill[sig] : 0;
}
`;

type OriginSymbols = ReturnType<typeof compile>;
let symbols: OriginSymbols | Error | undefined;

/** TinyCC reads a file: the source goes into a fresh private directory (the compiled binary has no file of it). */
function compile() {
  const dir = mkdtempSync(join(tmpdir(), "derun-origin-"));
  try {
    const source = join(dir, "origin.c");
    writeFileSync(source, SOURCE, { mode: 0o600 });
    return cc({
      source,
      symbols: {
        derun_watch_origin: { args: ["i32"], returns: "i32" },
        derun_unwatch_origin: { args: ["i32"], returns: "void" },
        derun_sent_by_kill: { args: ["i32"], returns: "u32" },
      },
    }).symbols;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface SignalOrigins {
  /**
   * For each delivery of `signal` to derun's listener, in order: whether a process sent it with
   * kill() (true) or a terminal did (false). A signal kill() sent is counted when it arrives;
   * each call takes one of them.
   */
  sentByKill(signal: NodeJS.Signals): boolean;
  /** Puts Bun's handlers back. Idempotent. */
  dispose(): void;
}

/**
 * Watches who sends `signals`, each of which must have a `process.on` listener already (Bun's
 * handler is what the C handler goes in front of). Undefined off Linux, or where TinyCC cannot
 * compile: then nobody can tell, as before.
 */
export function watchSignalOrigins(signals: Iterable<NodeJS.Signals>): SignalOrigins | undefined {
  if (process.platform !== "linux") return undefined;
  if (symbols === undefined) {
    try {
      symbols = compile();
    } catch (error) {
      symbols = error instanceof Error ? error : new Error(String(error));
    }
  }
  if (symbols instanceof Error) return undefined;
  const lib = symbols;
  const watched = new Map<NodeJS.Signals, { signo: number; taken: number }>();
  for (const signal of signals) {
    const signo = constants.signals[signal];
    if (signo !== undefined && lib.derun_watch_origin(signo) === 0) watched.set(signal, { signo, taken: lib.derun_sent_by_kill(signo) });
  }
  return {
    sentByKill(signal) {
      const seen = watched.get(signal);
      if (!seen) return false;
      if (lib.derun_sent_by_kill(seen.signo) === seen.taken) return false;
      seen.taken = (seen.taken + 1) >>> 0;
      return true;
    },
    dispose() {
      for (const { signo } of watched.values()) lib.derun_unwatch_origin(signo);
      watched.clear();
    },
  };
}
