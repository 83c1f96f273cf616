/**
 * `StreamReader.pending` on a real PTY (Linux): from the instant the reader thread has taken a chunk
 * from the fd until the chunk is handed over, the fd looks empty, so `pending` must say so: a stop
 * (posix-pty's `drained()`, ChildJob.onStop) waits while the fd is readable or `pending` holds, and
 * a chunk in neither place reached the screen after bash's "Stopped" line (seen in CI with `less`).
 * The main thread looks without yielding (nothing is handed over meanwhile), as often as it can,
 * while the thread reads on another CPU: each chunk's read is caught in its gap, if it has one.
 * For both threads: the reader Worker, and the native pump (io/native-pump.ts) where it runs.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { writeSync } from "node:fs";
import { openStreamReader, type StreamReader } from "../../src/io/stream-reader.ts";
import { openPtmx } from "../../src/pty/ptmx.ts";
import { readable } from "../../src/tty/terminal-takeover.ts";
import { threadsNamed } from "../helpers/threads.ts";
import { until } from "../helpers/until.ts";
import { STREAM_READER_THREAD } from "../../src/io/stream-reader-thread.ts";
import { NATIVE_PUMP_THREAD, nativePumpUnsupported } from "../../src/io/native-pump.ts";

const ROUNDS = 500;
/** A bound for a thread that never reads (a test gone wrong), not a timing assertion. */
const SPIN_LIMIT_MS = 10_000;
const TIMEOUT = 90_000;

/** Two CPUs and taskset: the main thread and the reader thread each get one (see {@link apart}). */
const canPin = navigator.hardwareConcurrency >= 2 && Bun.which("taskset") !== null;

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

/**
 * Looks at the master and `pending` without yielding until the chunk is `pending` (the thread took it) or
 * nowhere: readable, no; pending, no; yet not handed over (nothing is, while this runs).
 */
function spinUntilTaken(master: number, reader: StreamReader): "pending" | "nowhere" {
  const since = performance.now();
  while (performance.now() - since < SPIN_LIMIT_MS) {
    // In this order, as drained() looks: the fd first, then what the reader holds.
    if (readable(master)) continue;
    return reader.pending ? "pending" : "nowhere";
  }
  throw new Error("the reader thread never read the chunk");
}

/**
 * The main thread on CPU 0 and thread `tid` on CPU 1, until the cleanups: sharing one, the thread
 * would read only while the spinning main thread is preempted, and could not be caught in between.
 */
function apart(tid: number): void {
  const taskset = (...args: string[]) => Bun.spawnSync(["taskset", ...args], { stderr: "pipe" });
  const mask = /: ([0-9a-f]+)\s*$/.exec(taskset("-p", String(process.pid)).stdout.toString())?.[1];
  if (mask === undefined || taskset("-p", "-c", "0", String(process.pid)).exitCode !== 0) return;
  cleanups.push(() => void taskset("-p", mask, String(process.pid)));
  taskset("-p", "-c", "1", String(tid));
}

/** The pump only where it runs (Linux x86-64 with TinyCC). */
const THREADS = [
  { name: "the reader Worker", thread: STREAM_READER_THREAD, nativePump: false },
  ...(nativePumpUnsupported() === undefined ? [{ name: "the native pump", thread: NATIVE_PUMP_THREAD, nativePump: true }] : []),
];

describe.skipIf(process.platform !== "linux").each(THREADS)("stream reader, $name: pending, on a PTY", ({ thread: name, nativePump }) => {
  test(
    "a chunk read from the fd is pending until it is handed over: never out of the fd and not pending",
    async () => {
      const pty = openPtmx({ cols: 80, rows: 24 });
      cleanups.push(() => pty.close());
      let delivered = 0;
      const threadsBefore = new Set(threadsNamed(process.pid, name));
      const reader = openStreamReader([{ fd: pty.master, deliver: (bytes) => void (delivered += bytes.length) }], {
        threadDelayMs: 0,
        nativePump,
      });
      cleanups.push(() => void reader.stop(0));
      // The thread runs once a first chunk came through (it starts on a turn of the event loop).
      let written = writeSync(pty.slave, "w");
      await until("the thread reading", () => (delivered === written ? true : undefined), { everyMs: 1 });
      const thread = threadsNamed(process.pid, name).find((tid) => !threadsBefore.has(tid));
      if (canPin && thread !== undefined) apart(thread);
      const lost: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        // A screen's last bytes (an alternate screen left, a prompt): one small chunk, no newline.
        written += writeSync(pty.slave, "x".repeat(1 + (round % 40)));
        if (spinUntilTaken(pty.master, reader) === "nowhere")
          lost.push(`round ${round}: ${written - delivered} bytes neither readable nor pending`);
        await until("the chunk handed over", () => (delivered === written ? true : undefined), { everyMs: 1 });
      }
      expect(lost).toEqual([]);
    },
    TIMEOUT,
  );
});
