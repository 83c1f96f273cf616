/**
 * Reading the child's output streams (derun's own ends: FIFO pipes or stream PTYs) on one thread of
 * their own, into a fixed shared ring (core/record-ring.ts), delivered in the order the thread read
 * them across streams.
 *
 * Why: Bun's fd streams hand every chunk over in a fresh buffer, and resident memory grew with the
 * volume read (a 1 GB run peaked 27 MB above a 10 MB one; the reader alone, measured apart). Here
 * the bytes go from the kernel into the ring and are delivered as views of it, so nothing is
 * allocated per chunk. One thread and one ring for both streams keep their order as Bun's single
 * event loop did (`printf hello; printf -world >&2` records `hello-world`). The child still feels
 * back-pressure: a full ring stops the reading.
 *
 * If the thread cannot start (its module did not load), Bun's streams take over after the start
 * timeout; nothing was read by then, so no byte is lost or reordered.
 *
 * The thread starts {@link THREAD_DELAY_MS} after the streams open, not at once: most commands an
 * agent runs are over by then, and a thread costs its own JavaScript VM (measured: `derun run --
 * true` in pipe mode 25.7 -> 18.4 ms of CPU without it). When the writer is done before that
 * (`readNow`: the child exited), this thread reads what the pipes hold and the reader thread never
 * starts. Until the thread starts nothing reads, as before it started when it started at once: the
 * pipes hold the bytes, and a stream's order against the other is what it always was for bytes
 * written before the reader ran (stream by stream).
 */
import { readSync, writeSync } from "node:fs";
import { createRecordRing, PRODUCED, RingConsumer, THREAD_START_TIMEOUT_MS, type RecordRingInit } from "./record-ring.ts";
import { pumpStream } from "./pump.ts";
import { openFifoPipe, type FifoPipe } from "./fifo-pipe.ts";

/** Four of the 256 KiB pipe's worth: the thread rarely waits for the main thread. */
const RING_BYTES = 1024 * 1024;
const RING_RECORDS = 1024;
/** Records delivered before the main thread lets its event loop run (signals, the child's exit). */
const RECORDS_PER_TURN = 64;
const WORKER_URL = new URL("./stream-reader.worker.ts", import.meta.url).href;
/** How long after opening the streams the reader thread starts, unless `readNow` came first. */
export const THREAD_DELAY_MS = 20;
/** The buffer of `readNow`: a pipe's worth (256 KiB) in four reads. */
const READ_NOW_BYTES = 64 * 1024;

/** What the main thread sends the reader thread. */
export interface StreamReaderInit {
  readonly ring: RecordRingInit;
  /** The streams' fds; a stream's tag is its index here. */
  readonly fds: readonly number[];
  /** Readable when the main thread wants the thread to look at its stop requests. */
  readonly wakeFd: number;
}

/** Flag value: the main thread asks the thread to stop reading that stream. */
export const STOP_REQUESTED = 1;

export interface OutputStream {
  readonly fd: number;
  /** Each chunk, in order; `bytes` is valid only during the call. */
  readonly deliver: (bytes: Uint8Array) => void;
}

export interface StreamReader {
  /** Resolves once stream `index` has ended: EOF, a read error, or stopped. */
  ended(index: number): Promise<void>;
  /** Stop reading stream `index`; resolves once nothing reads its fd any more (then it may be closed). */
  stop(index: number): Promise<void>;
  /**
   * The writers are done (the child exited): if the reader thread has not started, read what the
   * streams hold on this thread, at once, and never start it; a stream still open after that (a
   * grandchild holds it) goes on with Bun's reader. Once the thread runs, this does nothing.
   */
  readNow(): void;
}

export interface StreamReaderOptions {
  /** The reader thread's module (tests point it at a module that never starts). */
  readonly workerUrl?: string;
  readonly startTimeoutMs?: number;
  /** Start the thread this long after opening (default {@link THREAD_DELAY_MS}). */
  readonly threadDelayMs?: number;
}

export function openStreamReader(streams: readonly OutputStream[], options: StreamReaderOptions = {}): StreamReader {
  const init = createRecordRing(RING_BYTES, RING_RECORDS);
  const ring = new RingConsumer(init);
  let thread: ReturnType<typeof startThread>;
  const ends = streams.map(() => Promise.withResolvers<void>());
  const ended = streams.map(() => false);
  const stopped = streams.map(() => false);
  const bunReaders: ({ cancel(): Promise<void> } | undefined)[] = streams.map(() => undefined);
  /** The thread is gone (finished, failed, or never started): its wake pipe is closed. */
  let threadGone = false;

  const finish = (index: number) => {
    ended[index] = true;
    ends[index]!.resolve();
  };
  const stopThread = () => {
    threadGone = true;
    thread?.worker.terminate();
    thread?.wake.close();
  };

  /**
   * Bun's streams read what the thread did not: all of it when the thread never started, or what
   * is left when it ended without ending a stream (it failed). The thread no longer reads, so
   * nothing is read twice or out of order.
   */
  const readWithBun = (index: number) => {
    if (ended[index]) return;
    if (stopped[index]) return finish(index);
    const reader = Bun.file(streams[index]!.fd).stream().getReader();
    bunReaders[index] = reader;
    void pumpStream(reader, streams[index]!.deliver).then(() => finish(index));
  };
  const readRestWithBun = () => {
    stopThread();
    streams.forEach((_, index) => readWithBun(index));
  };
  /** Reads stream `index` on this thread until EOF (ended), a read error (ended) or nothing more yet (false). */
  const readHere = (index: number, buffer: Uint8Array): boolean => {
    for (;;) {
      let n: number;
      try {
        n = readSync(streams[index]!.fd, buffer, 0, buffer.length, null);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EAGAIN") return false;
        n = 0; // as the thread does: a read error (EIO: a stream PTY's child side gone) ends the stream
      }
      if (n === 0) return true;
      streams[index]!.deliver(buffer.subarray(0, n));
    }
  };

  const startTimer = setTimeout(() => {
    if (ring.threadStarted !== undefined) return; // readNow came first
    thread = startThread(init, streams, options.workerUrl ?? WORKER_URL);
    // A module that fails to load says so at once: no need to wait for the start timeout. A thread
    // that dies after it started leaves its ring open: close it, and the rest goes to Bun's streams.
    thread?.worker.addEventListener("error", () => (ring.claim(-1) ? readRestWithBun() : ring.close()));
    // No thread at all (no pipe for its wake-ups, or no Worker): Bun's streams from here.
    if (thread === undefined && ring.claim(-1)) readRestWithBun();
  }, options.threadDelayMs ?? THREAD_DELAY_MS);

  void (async () => {
    const startTimeout = options.startTimeoutMs ?? THREAD_START_TIMEOUT_MS;
    let turn = 0;
    for (;;) {
      if (ring.threadStarted === false) return; // Bun's streams took over
      const seen = ring.counter(PRODUCED); // before looking: a commit after this changes it
      const record = ring.head();
      if (record !== undefined) {
        // Also after a stop: these bytes were read before it, and belong in the recording.
        if (record.bytes.length === 0) finish(record.tag);
        else streams[record.tag]!.deliver(record.bytes);
        ring.release();
        if (++turn % RECORDS_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
        continue;
      }
      if (ring.closed) return readRestWithBun();
      const timeout = ring.threadStarted === undefined ? startTimeout + (options.threadDelayMs ?? THREAD_DELAY_MS) : Infinity;
      if ((await ring.wait(PRODUCED, seen, timeout)) === "timed-out" && ring.claim(-1)) return readRestWithBun();
    }
  })();

  return {
    ended: (index) => ends[index]!.promise,
    readNow() {
      // Claiming means the thread never reads: it was not started, or it will find the ring taken.
      if (!ring.claim(-1)) return;
      clearTimeout(startTimer);
      stopThread();
      ring.close(); // the delivery loop, waiting for a thread, ends
      const buffer = new Uint8Array(READ_NOW_BYTES);
      streams.forEach((_, index) => {
        if (ended[index] || stopped[index]) return finish(index);
        if (readHere(index, buffer)) finish(index);
        else readWithBun(index);
      });
    },
    async stop(index) {
      if (stopped[index] || ended[index]) return ends[index]!.promise;
      stopped[index] = true;
      const bunReader = bunReaders[index];
      if (bunReader) return bunReader.cancel().then(() => finish(index));
      // Not started yet: claiming the ring means it never will; the other streams go to Bun.
      if (ring.claim(-1)) return readRestWithBun();
      if (threadGone) return ends[index]!.promise;
      ring.setFlag(index, STOP_REQUESTED);
      ring.nudge(); // a thread waiting for room
      writeSync(thread!.wake.writeEnd, "x"); // a thread waiting for readiness (its pipe is open: threadGone is false)
      return ends[index]!.promise; // its end record: from then on the thread leaves the fd alone
    },
  };
}

/**
 * The reader thread and the pipe that wakes it (a stop interrupts its wait with one byte), or
 * undefined when either cannot be made: then Bun's streams read instead, and the run goes on.
 */
function startThread(init: RecordRingInit, streams: readonly OutputStream[], workerUrl: string): { worker: Worker; wake: FifoPipe } | undefined {
  let wake: FifoPipe | undefined;
  try {
    wake = openFifoPipe();
    const worker = new Worker(workerUrl);
    worker.unref();
    worker.postMessage({ ring: init, fds: streams.map((stream) => stream.fd), wakeFd: wake.readEnd } satisfies StreamReaderInit);
    return { worker, wake };
  } catch {
    wake?.close();
    return undefined;
  }
}
