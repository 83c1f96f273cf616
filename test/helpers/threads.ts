/**
 * For the tests of derun's helper threads (the output writer, the pipe reader, the key relay): a
 * thread module that never starts, a look at a process's scheduling state, at its threads and what
 * one has read, and at what a pipe still holds.
 */
import { ptr } from "bun:ffi";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { libc } from "../../src/os/libc.ts";

/** A worker module in `dir` that throws when loaded: the thread never starts. Its file URL. */
export function workerThatNeverStarts(dir: string): string {
  const file = join(dir, "broken.worker.ts");
  writeFileSync(file, 'throw new Error("this thread never starts");\n');
  return Bun.pathToFileURL(file).href;
}

/**
 * A worker module in `dir` that never finishes loading and never fails: a thread still starting, as
 * under load when derun runs from source. Its file URL.
 */
export function workerStillLoading(dir: string): string {
  const file = join(dir, "loading.worker.ts");
  writeFileSync(file, "await new Promise(() => {});\n");
  return Bun.pathToFileURL(file).href;
}

/** The state letter of a process (`R` running, `S` sleeping, `T` stopped, `Z` zombie), or undefined once it is gone. */
export function processState(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "")[0];
  } catch {
    return undefined;
  }
}

/** Whether process `pid` still exists (a zombie included): signal 0 reaches it. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The ids of the threads of process `pid` named `name` (their `comm`), none once it is gone. */
export function threadsNamed(pid: number, name: string): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`)
      .map(Number)
      .filter((tid) => readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim() === name);
  } catch {
    return [];
  }
}

/** Each thread of process `pid` with its name and scheduling policy (0 SCHED_OTHER, 5 SCHED_IDLE); none once it is gone. */
export function threadPolicies(pid: number): { tid: number; name: string; policy: number }[] {
  const threads: { tid: number; name: string; policy: number }[] = [];
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`).map(Number)) {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      // Fields after the name start at the third (the state); the policy is the 41st.
      const policy = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[41 - 3]);
      threads.push({ tid, name, policy });
    }
  } catch {
    // gone meanwhile (the process, or one thread): what was read so far
  }
  return threads;
}

/** The bytes thread `tid` of `pid` has read so far (read(2) and the like: Linux's `rchar`). */
export function bytesReadBy(pid: number, tid: number): number {
  const match = /^rchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/task/${tid}/io`, "utf8"));
  if (!match) throw new Error(`no rchar for thread ${tid} of ${pid}`);
  return Number(match[1]);
}

/**
 * The system call thread `tid` of `pid` is blocked in, with its arguments (Linux's
 * /proc/<pid>/task/<tid>/syscall), or undefined while it runs or once it is gone.
 */
export function blockedIn(pid: number, tid: number): { nr: number; args: number[] } | undefined {
  try {
    const [nr, ...args] = readFileSync(`/proc/${pid}/task/${tid}/syscall`, "utf8").trim().split(" ");
    if (nr === "running" || nr === undefined || Number.isNaN(Number(nr))) return undefined;
    return { nr: Number(nr), args: args.map((arg) => Number(arg)) };
  } catch {
    return undefined;
  }
}

/** Linux's FIONREAD: the bytes a pipe holds that nobody has read yet. */
const FIONREAD = 0x541b;

/** How many bytes pipe `fd` holds unread (Linux only: ioctl is variadic, see src/os/libc.ts). */
export function bytesUnread(fd: number): number {
  if (process.platform !== "linux") throw new Error("bytesUnread: Linux only");
  const count = new Int32Array(1);
  if (libc().ioctl(fd, FIONREAD, ptr(count)) !== 0) throw new Error(`FIONREAD failed on fd ${fd}`);
  return count[0]!;
}

/**
 * Resolves once process `pid` is in `state` (a signal sent to it a moment ago lands when the kernel
 * next schedules it, not at once). Rejects after `timeoutMs`, a bound for a test that went wrong.
 */
export async function waitForProcessState(pid: number, state: string, timeoutMs = 10_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (processState(pid) !== state) {
    if (performance.now() > deadline) throw new Error(`process ${pid} never reached state ${state} (now ${processState(pid)})`);
    await Bun.sleep(1);
  }
}
