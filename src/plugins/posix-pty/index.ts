/**
 * posix-pty: the child runs on a pseudo-terminal of its own (pty/child-pty.ts: on Linux one
 * derun opens and reads at its terminal's pace; elsewhere Bun's Terminal, chosen over bun-pty
 * because it hands out the raw bytes, where bun-pty decodes them as UTF-8 and loses every invalid
 * byte). The PTY is made before the child, with the user's terminal modes and typed-ahead keys in
 * it. Under a job-control shell the child runs as the job of a small session leader, so Ctrl-Z,
 * `fg` and `bg` work on it as without derun; else Bun spawns it as the PTY's session leader.
 * Importing this module has no side effects.
 */
import { constants } from "node:os";
import {
  defineTransport,
  DrainWindow,
  leaderUnavailable,
  openChildPty,
  type ChildExit,
  type ChildPty,
  type RunningChild,
  type TransportOpenOptions,
} from "../../plugin-api/index.ts";
import { startLed, startSpawned, type StartedChild } from "./_start.ts";

/** Used when the caller has no window size (derun's stdout is not a terminal). */
const DEFAULT_SIZE = { cols: 80, rows: 24 } as const;

export default defineTransport({
  meta: { name: "posix-pty", description: "Bun's built-in pseudo-terminal (Linux, macOS)" },
  capabilities: { tty: true, resize: true, signals: true, input: "forward" },
  supports: (probe) => probe.platform !== "win32",
  open: async (command, options) => openPty(command, options),
});

async function openPty(command: readonly string[], options: TransportOpenOptions): Promise<RunningChild> {
  // The terminal's `onEnd` is the end of the stream: EOF, or EIO once the last slave fd is closed
  // (the kernel hangs up the PTY when the session leader exits). Both are a normal end.
  const { promise: streamEnd, resolve: endStream } = Promise.withResolvers<void>();
  const drain = new DrainWindow();
  const user = options.terminal;
  const show = options.outputFlow?.show;
  const pty = openChildPty({
    size: options.size ?? DEFAULT_SIZE,
    ...(user ? { modes: user.modes } : {}),
    onData: (bytes) => {
      drain.activity();
      options.onOutput("pty", bytes);
    },
    onEnd: () => endStream(),
    ...(options.outputFlow ? { flow: options.outputFlow, flowProgress: () => drain.activity() } : {}),
    ...(show
      ? {
          show: {
            ...show,
            shown: (bytes, outcome) => {
              drain.activity();
              show.shown(bytes, outcome);
            },
          },
        }
      : {}),
  });
  let started: StartedChild;
  // Started in the background: the modes it gets are the terminal's at a shell's prompt (see resume);
  // taken before it runs, which may set its own at once.
  let backgroundModes: Uint8Array | undefined;
  try {
    // Before the child runs: it must find these keys as the first input of its terminal.
    if (user) pty.typeUnechoed(user.typedAhead);
    if (user?.foreground === false) backgroundModes = pty.modes();
    const led = user?.jobControl === true && leaderUnavailable() === undefined;
    started = led ? await startLed(pty, command, options, user?.foreground ?? true) : startSpawned(pty, command, options);
  } catch (error) {
    pty.close();
    throw error;
  }
  pty.releaseSlave();
  // Not quiet while the master holds bytes or the reader has them on their way (a reader thread run
  // late, derun's terminal stalled): stopping it then would drop the child's last writes.
  const probes = { busy: () => pty.unread(), held: () => options.outputFlow?.held() ?? false };
  return runningChild(pty, started, () => drain.drain(streamEnd, probes), backgroundModes);
}

function runningChild(
  pty: ChildPty,
  started: StartedChild,
  drainOutput: () => Promise<boolean>,
  backgroundModes: Uint8Array | undefined,
): RunningChild {
  let ended: ChildExit | undefined;
  let modesAtStart = backgroundModes;
  const exited = started.exit.then(async (exit) => {
    ended = exit;
    // A short command is over before a reader thread would start: what it wrote is read here.
    pty.readNow();
    await drainOutput();
    pty.close();
    return exit;
  });
  return {
    pid: started.pid,
    ...(pty.reader ? { outputReader: pty.reader } : {}),
    // Every byte is taken, queued while the PTY cannot take it yet: a large paste is never truncated.
    write: (bytes) => pty.write(bytes),
    ...(pty.directInput ? { directInput: pty.directInput } : {}),
    resize: (size) => pty.resize(size),
    kill: (signal) => started.kill(signal),
    endInput: () => {
      const eof = pty.eofChar();
      if (eof !== undefined) pty.write(Uint8Array.of(eof));
    },
    // Closing every master fd is what hangs up the slave side (as script and sshd do).
    hangUp: () => pty.close(),
    job: {
      onStop: (listener, stopping) =>
        started.onStop(async (signo) => {
          stopping?.();
          // What the child wrote before it stopped (vim leaving its screen) goes out first.
          await pty.drained();
          listener(signalName(signo));
        }),
      stopKey: () => (pty.closed ? undefined : pty.stopKey()),
      resume: (foreground, typedAhead, userModes, continues = true) => {
        // First in the foreground after a start in the background: the user's modes now, as a shell
        // gives a job the terminal in its own saved modes, unless the child set modes of its own.
        if (foreground && modesAtStart) {
          const now = pty.modes();
          if (userModes && now && Buffer.compare(now, modesAtStart) === 0) pty.setModes(userModes);
          modesAtStart = undefined;
        }
        if (typedAhead) pty.typeUnechoed(typedAhead);
        started.continueIn(foreground, continues);
      },
    },
    exited,
    [Symbol.asyncDispose]: async () => {
      if (ended === undefined) started.kill("SIGKILL");
      await exited;
    },
  };
}

const signalName = (signo: number): NodeJS.Signals =>
  (Object.entries(constants.signals).find(([, number]) => number === signo)?.[0] ?? "SIGSTOP") as NodeJS.Signals;
