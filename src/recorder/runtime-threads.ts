/**
 * The runtime's own background threads yield the CPU to everything else while a command runs (Linux).
 *
 * Bun's JavaScriptCore compiles hot code on `JITWorker` threads, warms heap blocks on `JSCWarmUp`
 * and returns memory on `mi-scavenger`, each in bursts of 1-2 ms. On a two-core machine such a burst
 * takes a CPU, and a thread woken on that CPU (the command after a key, derun's key relay or reader
 * after it) waits for the burst to end while the other CPU idles: `perf sched` of the keystroke
 * bench showed 9 of derun's 40 slowest keys in a run waiting this way, most of them among the
 * first 500 keys, while the code they run is still being compiled. As SCHED_IDLE those threads run
 * only when a CPU has nothing else to do, and any other thread woken where one runs takes the CPU
 * at once. (A compiler thread the runtime starts after the last look below keeps its policy.)
 *
 * The threads on derun's own path (the main thread, the reader and writer threads, the key relay)
 * and the heap's marking helpers (`HeapHelper`, which a collection waits for) keep their policy.
 * None of this ever changes the command's threads: only `/proc/self`'s.
 */
import { readdirSync, readFileSync } from "node:fs";
import { ptr } from "bun:ffi";
import { libcSched } from "../os/libc.ts";

/** The runtime's background threads, by the name the runtime gives them. */
export const BACKGROUND_THREADS: ReadonlySet<string> = new Set(["JITWorker", "JSCWarmUp", "mi-scavenger"]);

/** SCHED_IDLE (linux/sched.h): runs only on a CPU with nothing else to run. */
const SCHED_IDLE = 5;

/**
 * The runtime starts such threads when first needed (a compiler thread at the first hot function):
 * looked for a few times early in the run, then no more (no timer for a long session). Not at once:
 * a short command (most of an agent's) ends before anyone types, and never pays for the look.
 */
const LOOK_AT_MS = [100, 1000, 5000];

export interface RuntimeThreads {
  stop(): void;
}

/** From now until `stop()`, the runtime's background threads run at idle priority. */
export function yieldRuntimeThreads(): RuntimeThreads {
  if (process.platform !== "linux") return { stop() {} };
  const done = new Set<number>();
  const timers = LOOK_AT_MS.map((ms) => {
    const timer = setTimeout(() => idleBackgroundThreads(done), ms);
    timer.unref();
    return timer;
  });
  return {
    stop() {
      for (const timer of timers) clearTimeout(timer);
    },
  };
}

/** Sets each background thread of this process not in `done` to SCHED_IDLE; adds it to `done`. */
function idleBackgroundThreads(done: Set<number>): void {
  let tids: string[];
  try {
    tids = readdirSync("/proc/self/task");
  } catch {
    return; // no /proc: nothing to do, and nothing is lost
  }
  const param = new Int32Array(1); // struct sched_param: the priority, 0 for SCHED_IDLE
  for (const entry of tids) {
    const tid = Number(entry);
    if (done.has(tid) || !BACKGROUND_THREADS.has(threadName(tid))) continue;
    done.add(tid);
    libcSched().sched_setscheduler(tid, SCHED_IDLE, ptr(param)); // a failure leaves it as it was
  }
}

function threadName(tid: number): string {
  try {
    return readFileSync(`/proc/self/task/${tid}/comm`, "utf8").trimEnd();
  } catch {
    return ""; // the thread ended meanwhile
  }
}
