/**
 * Job control for a command on its own PTY. A session leader's process group is orphaned (its
 * parent, derun, is in another session), and the kernel discards Ctrl-Z, SIGTTIN and SIGTTOU sent to
 * an orphaned group: neither `sleep` nor vim (which re-raises SIGTSTP) would stop. So the PTY gets a
 * small leader process of its own, as sudo's monitor does, that runs the command as a job of its own
 * group: the kernel then stops it as in a shell, the leader reports each stop, and continues it in
 * the PTY's foreground or background when told. The leader is C compiled by TinyCC (bun:ffi `cc`),
 * forked from derun; it reports the command's raw wait status, so an exit maps exactly as Bun's.
 */
import { ptr } from "bun:ffi";
import { constants } from "node:os";
import { isAbsolute, resolve } from "node:path";
import { libcTtyIo, libcWait } from "../os/libc.ts";
import { compileC } from "../os/cc-scratch.ts";
import { LEADER_SOURCE } from "./leader-source.ts";

const EV_PID = 1;
const EV_EXEC_ERROR = 2;
const EV_STOPPED = 3;
const EV_EXIT = 4;
const CMD_FG = 1;
const CMD_BG = 2;
/** Added to CMD_FG or CMD_BG: move the foreground only, without a SIGCONT. */
const CMD_NO_CONT = 2;
const CMD_SIGNAL = 256;
const ENOENT = 2;

type LeaderSymbols = ReturnType<typeof compile>;
let symbols: LeaderSymbols | Error | undefined;

/** The leader compiled by TinyCC in derun's private scratch directory (../os/cc-scratch.ts). */
const compile = () =>
  compileC("leader", LEADER_SOURCE, {
    derun_start_leader: { args: ["i32", "i32", "ptr", "ptr", "ptr", "ptr", "i32", "i32", "u64", "ptr", "i32"], returns: "i32" },
    derun_pipe: { args: ["ptr"], returns: "i32" },
    derun_start_sentinel: { args: ["i32", "i32", "u64"], returns: "i32" },
  });

/** Why there is no leader here (TinyCC cannot compile it), or undefined when there is one. */
export function leaderUnavailable(): string | undefined {
  const lib = leaderSymbols();
  return lib instanceof Error ? lib.message : undefined;
}

/** The compiled leader, or the reason there is none here. */
export function leaderSymbols(): LeaderSymbols | Error {
  if (symbols === undefined) {
    try {
      symbols = compile();
    } catch (error) {
      symbols = error instanceof Error ? error : new Error(String(error));
    }
  }
  return symbols;
}

export interface LeaderRequest {
  /** derun's fd of the PTY's slave side. */
  readonly slave: number;
  /** Start the command in the PTY's foreground (else the leader keeps it, as for a `cmd &`). */
  readonly foreground: boolean;
  readonly command: readonly string[];
  readonly cwd: string;
  readonly env: Record<string, string | undefined>;
  /** Signals the command starts with ignored (derun's caller ignored them); every other one has its default. */
  readonly ignored?: readonly NodeJS.Signals[];
  /** derun's fds above 2 the command gets at the same numbers (derun's caller left them open). */
  readonly inherited?: readonly number[];
}

/** Signal numbers as a mask, bit n-1 for signal n (the leader's `ignored`). */
export const maskOf = (signals: readonly NodeJS.Signals[]): bigint =>
  signals.reduce((mask, signal) => {
    const signo = constants.signals[signal];
    return signo && signo <= 64 ? mask | (1n << BigInt(signo - 1)) : mask;
  }, 0n);

/** A command running as the leader's job. */
export interface LeaderJob {
  /** The command's pid (the leader's child). */
  readonly pid: number;
  /** Called with the signal number each time the command stops. */
  onStop(listener: (signo: number) => void): void;
  /**
   * Sends `signal` to the command through the leader, which has not reaped it while it reads this:
   * never to a process that took the pid over. Nothing once the command has exited.
   */
  signal(signal: NodeJS.Signals): void;
  /**
   * Continues the command's group, giving it the PTY's foreground or not; with `continues` false only
   * the foreground moves (no SIGCONT: the group is running). Nothing once it has exited.
   */
  continueIn(foreground: boolean, continues?: boolean): void;
  /** The command's raw wait status, once it has ended and the leader is reaped. */
  readonly status: Promise<number>;
}

/** The command could not be executed: errno of execve or chdir (the leader reaped it). */
export class LeaderExecError extends Error {
  constructor(readonly errno: number) {
    super(`exec failed: errno ${errno}`);
  }
}

/** Starts the command under a new leader; resolves once it has been executed. */
export async function startUnderLeader(request: LeaderRequest): Promise<LeaderJob> {
  const lib = leaderSymbols();
  if (lib instanceof Error) throw lib;
  const path = cString(executablePath(request));
  const events = newPipe(lib);
  const control = newPipe(lib);
  const argv = cStrings(request.command);
  const envp = cStrings(Object.entries(request.env).flatMap(([key, value]) => (value === undefined ? [] : [`${key}=${value}`])));
  const cwd = cString(request.cwd);
  // One element at least: bun:ffi hands an empty array over as a null pointer.
  const inherited = Int32Array.from(request.inherited?.length ? request.inherited : [-1]);
  const leader = lib.derun_start_leader(
    request.slave,
    request.foreground ? 1 : 0,
    ptr(path),
    ptr(argv.array),
    ptr(envp.array),
    ptr(cwd),
    events[1],
    control[0],
    maskOf(request.ignored ?? []),
    ptr(inherited),
    request.inherited?.length ?? 0,
  );
  const io = libcTtyIo();
  io.close(events[1]);
  io.close(control[0]);
  if (leader < 0) {
    io.close(events[0]);
    io.close(control[1]);
    throw new Error(`posix-pty: cannot fork the session leader (errno ${-leader})`);
  }
  return await followLeader(leader, events[0], control[1]);
}

/** Reads the leader's records: the pid first (or the exec error), then stops, then the exit. */
async function followLeader(leader: number, eventsFd: number, controlFd: number): Promise<LeaderJob> {
  const { promise: started, resolve: start, reject: failStart } = Promise.withResolvers<number>();
  const { promise: status, resolve: end } = Promise.withResolvers<number>();
  const stops = new StopReports();
  // The control pipe is closed once the command has ended: its fd number may then be anyone's.
  let controlOpen = true;
  const closeControl = () => {
    if (controlOpen) libcTtyIo().close(controlFd);
    controlOpen = false;
  };
  const tell = (command: number) => {
    if (controlOpen) libcTtyIo().write(controlFd, ptr(Int32Array.of(command)), 4);
  };
  const finish = (raw: number) => {
    closeControl();
    reap(leader);
    end(raw);
  };
  void (async () => {
    let pending: Uint8Array = new Uint8Array(0);
    let exited = false;
    for await (const chunk of Bun.file(eventsFd).stream()) {
      pending = concat(pending, chunk);
      for (; pending.length >= 8; pending = pending.subarray(8)) {
        const record = new Int32Array(pending.slice(0, 8).buffer);
        const [kind = 0, value = 0] = record;
        if (kind === EV_PID) start(value);
        else if (kind === EV_EXEC_ERROR) failStart(new LeaderExecError(value));
        else if (kind === EV_STOPPED) stops.report(value);
        else if (kind === EV_EXIT) {
          exited = true;
          finish(value);
        }
      }
    }
    libcTtyIo().close(eventsFd);
    // The leader died without a word (killed): its own status stands in for the command's.
    if (!exited) {
      failStart(new Error("posix-pty: the session leader ended before the command started"));
      closeControl();
      end(reap(leader));
    }
  })();
  const pid = await started.catch((error: unknown) => {
    void status.catch(() => {});
    throw error;
  });
  return {
    pid,
    onStop: (listener) => stops.listen(listener),
    signal: (signal) => {
      const signo = constants.signals[signal];
      if (signo !== undefined) tell(CMD_SIGNAL + signo);
    },
    continueIn: (foreground, continues = true) => tell((foreground ? CMD_FG : CMD_BG) + (continues ? 0 : CMD_NO_CONT)),
    status,
  };
}

/** Waits for the leader (it exits right after its last record) and returns its raw status. */
function reap(pid: number): number {
  const status = new Int32Array(1);
  libcWait().waitpid(pid, ptr(status), 0);
  return status[0] ?? 0;
}

export function newPipe(lib: LeaderSymbols): [number, number] {
  const fds = new Int32Array(2);
  const failed = lib.derun_pipe(ptr(fds));
  if (failed < 0) throw new Error(`posix-pty: cannot make a pipe (errno ${-failed})`);
  return [fds[0] ?? -1, fds[1] ?? -1];
}

/** What execve gets: a name with a slash is a path from `cwd`; a bare name is looked up on PATH. */
function executablePath({ command, cwd, env }: LeaderRequest): string {
  const name = command[0] ?? "";
  if (name.includes("/")) return isAbsolute(name) ? name : resolve(cwd, name);
  const found = Bun.which(name, { PATH: env.PATH ?? "", cwd });
  if (found === null) throw new LeaderExecError(ENOENT);
  return found;
}

const cString = (text: string): Uint8Array => new TextEncoder().encode(`${text}\0`);

/** A NULL-terminated array of C strings; the strings are kept alive with it. */
function cStrings(texts: readonly string[]): { array: BigUint64Array; strings: Uint8Array[] } {
  const strings = texts.map(cString);
  const array = new BigUint64Array(strings.length + 1);
  strings.forEach((bytes, i) => (array[i] = BigInt(ptr(bytes))));
  return { array, strings };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}

/** Stops reported to the listeners; one that comes before any listener (a command that stops at once) waits for the first. */
export class StopReports {
  readonly #listeners: ((signo: number) => void)[] = [];
  readonly #early: number[] = [];

  report(signo: number): void {
    if (this.#listeners.length === 0) this.#early.push(signo);
    for (const listener of this.#listeners) listener(signo);
  }

  listen(listener: (signo: number) => void): void {
    this.#listeners.push(listener);
    for (const signo of this.#early.splice(0)) listener(signo);
  }
}
