/**
 * The logic of the windows-conpty transport, with the pseudo-console factory injected so it can be
 * unit-tested on any OS (test/plugins/windows-conpty.test.ts drives it with a fake). The real
 * factory is conpty.ts (kernel32 through bun:ffi), run by test/windows/conpty.test.ts under Wine.
 */
import {
  SpawnError,
  systemClock,
  type ChildExit,
  type DrainClock,
  type RunningChild,
  type TransportOpenOptions,
  type WindowSize,
} from "../../plugin-api/index.ts";

/** A child on a pseudo console, as conpty.ts starts one. */
export interface PseudoConsole {
  readonly pid: number;
  /** The console's output, the bytes as they came. */
  onData(listener: (bytes: Uint8Array) => void): { dispose(): void };
  /** The process's exit code (a u32, as GetExitCodeProcess gives it). */
  onExit(listener: (event: { exitCode: number }) => void): { dispose(): void };
  write(bytes: Uint8Array): void;
  resize(cols: number, rows: number): void;
  /** End the process (TerminateProcess); its exit then comes through onExit. */
  kill(): void;
  /** After the exit: close the console; resolves once its last output has come through onData. */
  close(): Promise<void>;
}

export type PseudoConsoleFactory = (
  file: string,
  args: string[],
  options: { name: string; cols: number; rows: number; cwd: string; env: Record<string, string> },
) => PseudoConsole;

/** The window derun sits in (process.stdout when it is a TTY): its size and its `resize` event. */
export interface WindowSource {
  readonly columns: number;
  readonly rows: number;
  on(event: "resize", listener: () => void): unknown;
  off(event: "resize", listener: () => void): unknown;
}

export interface ConPtyDeps {
  readonly spawn: PseudoConsoleFactory;
  /** Resolves `command[0]` on PATH (Bun.which): CreateProcessW searches no PATH of the child's. */
  readonly which: (command: string, options: { PATH: string; cwd: string }) => string | null;
  readonly window?: WindowSource;
  readonly drain?: DrainTiming;
  /** The post-exit drain's clock (tests give one that moves only when told). */
  readonly clock?: DrainClock;
}

/**
 * After the exit, ConPTY may still be relaying the last output through conhost. We keep reading
 * until the output has been quiet for `quietMs`, or at most `graceMs` (something still writes to
 * the console), then close the console, which flushes its last frame and ends what is still
 * attached; the exit is reported once that output is in.
 */
export interface DrainTiming {
  readonly quietMs: number;
  readonly graceMs: number;
}

const DEFAULT_DRAIN: DrainTiming = { quietMs: 50, graceMs: 250 };

const DEFAULT_SIZE: WindowSize = { cols: 80, rows: 24 };

/** Windows' exit status for a console process ended by Ctrl-C (STATUS_CONTROL_C_EXIT). */
const STATUS_CONTROL_C_EXIT = 0xc000013a;

/** Starts `command` on a pseudo console and adapts it to {@link RunningChild}. */
export function startConPtyChild(command: readonly string[], options: TransportOpenOptions, deps: ConPtyDeps): RunningChild {
  const clock = deps.clock ?? systemClock;
  const pty = spawnConsole(command, options, deps);
  let finished = false;
  let killedWith: NodeJS.Signals | undefined;
  const output = relayOutput(pty, options.onOutput, clock);
  const window = followWindow(pty, options.size ?? DEFAULT_SIZE, deps.window, () => finished);
  const exited = exitEvent(pty).then(async (event) => {
    window.unfollow();
    await drainAfterExit(output.lastDataAt, deps.drain ?? DEFAULT_DRAIN, clock);
    finished = true;
    await pty.close();
    output.dispose();
    return exitOf(event, killedWith);
  });
  return {
    pid: pty.pid,
    write: inputWriter(pty, () => finished),
    resize: window.resizeTo,
    // Windows has no signals to send: any of them ends the process, and the exit names the signal.
    // (Ctrl-C reaches the child as the key, through the console's input.)
    kill: (signal) => {
      if (finished) return;
      killedWith = signal;
      pty.kill();
    },
    exited,
    [Symbol.asyncDispose]: async () => {
      if (!finished) {
        killedWith ??= "SIGKILL";
        pty.kill();
      }
      await exited;
    },
  };
}

/** Resolves `command[0]` on the child's PATH and starts it on a pseudo console with the defined environment. */
function spawnConsole(command: readonly string[], options: TransportOpenOptions, deps: ConPtyDeps): PseudoConsole {
  const env = Object.fromEntries(Object.entries(options.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  const [name = "", ...args] = command;
  const file = deps.which(name, { PATH: env.PATH ?? env.Path ?? "", cwd: options.cwd });
  if (file === null) throw new SpawnError("ENOENT", `command not found: ${name}`);
  const { cols, rows } = options.size ?? DEFAULT_SIZE;
  return deps.spawn(file, args, { name: "xterm-256color", cols, rows, cwd: options.cwd, env });
}

/** Hands the console's output on, noting when it last came (for the post-exit drain). */
function relayOutput(pty: PseudoConsole, onOutput: TransportOpenOptions["onOutput"], clock: DrainClock) {
  let lastDataAt = clock.now();
  const subscription = pty.onData((bytes) => {
    lastDataAt = clock.now();
    onOutput("pty", bytes);
  });
  return { lastDataAt: () => lastDataAt, dispose: () => subscription.dispose() };
}

/**
 * Keeps the console the size of derun's window, and of each resize() (no-op sizes skipped, none
 * once `finished`); `unfollow` stops listening to the window.
 */
function followWindow(pty: PseudoConsole, initial: WindowSize, window: WindowSource | undefined, finished: () => boolean) {
  let size = initial;
  const resizeTo = (next: WindowSize) => {
    if (finished() || (next.cols === size.cols && next.rows === size.rows)) return;
    size = next;
    pty.resize(next.cols, next.rows);
  };
  // Follow the window continuously; the orchestrator's resize() calls land in the same place.
  const onWindowResize = () => window && resizeTo({ cols: window.columns, rows: window.rows });
  window?.on("resize", onWindowResize);
  return { resizeTo, unfollow: () => window?.off("resize", onWindowResize) };
}

/** The console's exit event, once. */
function exitEvent(pty: PseudoConsole): Promise<{ exitCode: number }> {
  return new Promise((resolve) => {
    const subscription = pty.onExit((event) => {
      subscription.dispose();
      resolve(event);
    });
  });
}

/** The user's keys, as bytes, into the console's input (none once the console closes). */
function inputWriter(pty: PseudoConsole, finished: () => boolean): (bytes: Uint8Array) => void {
  return (bytes) => {
    if (!finished() && bytes.length > 0) pty.write(bytes);
  };
}

/** Waits until output has been quiet for `quietMs`; `false` when `graceMs` passed first. */
async function drainAfterExit(lastDataAt: () => number, timing: DrainTiming, clock: DrainClock): Promise<boolean> {
  const deadline = clock.now() + timing.graceMs;
  for (;;) {
    const quietUntil = lastDataAt() + timing.quietMs;
    const now = clock.now();
    if (now >= quietUntil) return true;
    if (now >= deadline) return false;
    await new Promise<void>((resolve) => clock.after(Math.min(quietUntil, deadline) - now, resolve));
  }
}

/** Maps the exit code: a kill derun sent names its signal; Ctrl-C's status is SIGINT. */
export function exitOf(event: { exitCode: number }, killedWith?: NodeJS.Signals): ChildExit {
  if (killedWith) return { kind: "signaled", signal: killedWith };
  if (event.exitCode >>> 0 === STATUS_CONTROL_C_EXIT) return { kind: "signaled", signal: "SIGINT" };
  return { kind: "exited", code: event.exitCode };
}
