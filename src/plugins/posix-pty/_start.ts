/**
 * The two ways posix-pty starts the command on its PTY: as the job of a session leader (job control
 * under a shell), or spawned by Bun as the PTY's session leader itself. Both end in the same shape.
 */
import { constants } from "node:os";
import {
  childExitOf,
  LeaderExecError,
  spawnIgnoring,
  spawnStdio,
  startUnderLeader,
  StopReports,
  toSpawnError,
  watchStops,
  type ChildExit,
  type ChildPty,
  type TransportOpenOptions,
} from "../../plugin-api/index.ts";

export interface StartedChild {
  readonly pid: number;
  kill(signal: NodeJS.Signals): void;
  /** `listener(signo)` on each stop of the child. */
  onStop(listener: (signo: number) => void): void;
  /** Continues the stopped child in its terminal's foreground or background (`continues` false: only moves it there). */
  continueIn(foreground: boolean, continues: boolean): void;
  readonly exit: Promise<ChildExit>;
}

/** errno values execve and chdir fail with that a shell reports (the same numbers on Linux and macOS). */
const ERRNO_CODES: Record<number, string> = { 2: "ENOENT", 8: "ENOEXEC", 13: "EACCES", 21: "EISDIR" };

/** Runs the command as the job of a new session leader on the PTY. */
export async function startLed(
  pty: ChildPty,
  command: readonly string[],
  options: TransportOpenOptions,
  foreground: boolean,
): Promise<StartedChild> {
  let job;
  try {
    job = await startUnderLeader({
      slave: pty.slave,
      foreground,
      command,
      cwd: options.cwd,
      env: options.env,
      ignored: options.ignoredSignals ?? [],
      inherited: options.inheritedFds ?? [],
    });
  } catch (error) {
    const code = error instanceof LeaderExecError ? ERRNO_CODES[error.errno] : undefined;
    throw (code && toSpawnError(command, options.cwd, { code })) || error;
  }
  const { pid } = job;
  return {
    pid,
    kill: (signal) => job.signal(signal),
    onStop: (listener) => job.onStop(listener),
    continueIn: (inForeground, continues) => job.continueIn(inForeground, continues),
    exit: job.status.then(exitOfStatus),
  };
}

/**
 * Bun spawns the command as the PTY's session leader. Not with `terminal:` (Bun makes a Terminal
 * made beforehand nobody's controlling terminal): `detached` is setsid(), and opening the slave
 * after it, for stdin, makes it the controlling terminal, as a login does (stdin is then opened
 * read-only; stdout and stderr share the slave's read-write file).
 */
export function startSpawned(pty: ChildPty, command: readonly string[], options: TransportOpenOptions): StartedChild {
  let proc: Bun.Subprocess;
  try {
    proc = Bun.spawn(spawnIgnoring(command, options.ignoredSignals, options.cwd, options.env), {
      cwd: options.cwd,
      env: options.env,
      stdio: spawnStdio([Bun.file(pty.slavePath), pty.slave, pty.slave], options.inheritedFds),
      detached: true,
    });
  } catch (error) {
    throw toSpawnError(command, options.cwd, error) ?? error;
  }
  const stops = new StopReports();
  const unwatch = watchStops(proc.pid, (signo) => stops.report(signo));
  // Bun reaped it: its pid, and the group named by it, may be anyone's by now.
  const running = () => proc.exitCode === null && proc.signalCode === null;
  return {
    pid: proc.pid,
    kill: (signal) => proc.kill(signal),
    onStop: (listener) => stops.listen(listener),
    // Its own group is the PTY's foreground for good: only a SIGSTOP can have stopped it.
    continueIn: (_foreground, continues) => continues && running() && signalQuietly(-proc.pid, "SIGCONT"),
    exit: proc.exited.then(() => {
      unwatch();
      return childExitOf(proc);
    }),
  };
}

/** A raw wait status as the exit shape (WIFEXITED: the code; else the terminating signal's number). */
function exitOfStatus(status: number): ChildExit {
  const signo = status & 0x7f;
  return signo === 0 ? { kind: "exited", code: (status >> 8) & 0xff } : childExitOf({ exitCode: null, signalCode: signo });
}

/** A process that is gone already has nothing left to signal. */
function signalQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, constants.signals[signal]);
  } catch {
    // ESRCH
  }
}
