/**
 * Writing one of derun's own output fds without making the child wait on the terminal.
 *
 * Why a thread: Bun's PTY reader hands the child's output over in chunks of up to 256 KiB. Written
 * synchronously on the main thread, each chunk stopped the reading of the child's PTY for as long
 * as the terminal took to accept it, so the child sat blocked about half the time (PTY throughput
 * 1.9x script's). A writer thread takes the bytes through a fixed shared ring, and the main thread
 * goes back to reading while the terminal drains.
 *
 * What does not change:
 * - Order: the ring is FIFO, and the main thread writes directly only when nothing is queued.
 * - Back-pressure: when the ring is full the main thread waits, so a slow or stopped terminal still
 *   stops the child, with at most RING_BYTES in between.
 * - Latency of small output: a chunk of at most DIRECT_MAX_BYTES, while nothing is queued, is
 *   written at once on the main thread (keystroke echo takes no thread hop, and a command that
 *   prints little never starts the thread).
 */
import { writeAllSync } from "../write-all.ts";
import { BROKEN_PIPE, CLOSED, createFdRing, FAILURE, NO_FAILURE, PENDING, STARTED, type FdRingInit } from "./fd-ring.ts";

/** Ring size: a few of Bun's 256 KiB PTY reads, so the reader rarely waits on the writer. */
const RING_BYTES = 1024 * 1024;
/** Larger chunks go through the thread even when it is idle. */
const DIRECT_MAX_BYTES = 16 * 1024;
/** The writer thread's module, next to this one (also in the compiled executable: scripts/build.ts). */
const WORKER_URL = new URL("./fd-writer.worker.ts", import.meta.url).href;

/** Default start timeout: far beyond a thread's start (milliseconds), short enough not to look hung. */
const START_TIMEOUT_MS = 5000;

/** What the owner of an FdWriter hears about. */
export interface FdWriterEvents {
  /** A write failed, once; `brokenPipe` when the reader went away (EPIPE). Later bytes are dropped. */
  failed(brokenPipe: boolean): void;
  /** The writer thread did not start in time: writes go on, on the main thread. */
  threadUnavailable(): void;
}

export interface FdWriterOptions {
  /** The writer thread's module (tests point it at a module that never starts). */
  readonly workerUrl?: string;
  /** How long to wait for the writer thread to start before writing on the main thread instead. */
  readonly startTimeoutMs?: number;
}

interface Ring {
  readonly control: Int32Array;
  readonly data: Uint8Array;
  readonly worker: Worker;
}

export class FdWriter {
  #ring: Ring | undefined;
  /** Where the next byte goes in the ring (the producer's own position). */
  #position = 0;
  #failed = false;
  /** The writer thread never started: everything is written on the main thread. */
  #direct = false;

  /** @param fd derun's own fd to write. */
  constructor(
    readonly fd: number,
    private readonly events: FdWriterEvents,
    private readonly options: FdWriterOptions = {},
  ) {}

  /** Queue (or write) every byte of `bytes` after everything written before. Never throws. */
  write(bytes: Uint8Array): void {
    if (this.#checkFailure()) return;
    const ring = this.#ring;
    if (this.#direct || (bytes.length <= DIRECT_MAX_BYTES && (ring === undefined || Atomics.load(ring.control, PENDING) === 0))) {
      this.#writeDirect(bytes);
      return;
    }
    this.#enqueue(ring ?? this.#start(), bytes);
  }

  /**
   * Blocks until every byte handed over has been written (or dropped after a failure), then stops
   * the thread. Called before derun restores its terminal or exits: raw-mode output must not meet
   * a cooked terminal.
   */
  close(): void {
    const ring = this.#ring;
    if (ring === undefined) return;
    this.#waitUntil(ring, (pending) => pending === 0);
    this.#checkFailure();
    Atomics.store(ring.control, CLOSED, 1);
    Atomics.notify(ring.control, PENDING);
    ring.worker.terminate();
    this.#ring = undefined;
    this.#position = 0;
  }

  #enqueue(ring: Ring, bytes: Uint8Array): void {
    const capacity = ring.data.length;
    let offset = 0;
    while (offset < bytes.length) {
      const room = capacity - this.#waitUntil(ring, (pending) => pending < capacity);
      if (this.#direct) return this.#writeDirect(bytes.subarray(offset));
      const length = Math.min(room, bytes.length - offset, capacity - this.#position);
      ring.data.set(bytes.subarray(offset, offset + length), this.#position);
      this.#position = (this.#position + length) % capacity;
      offset += length;
      Atomics.add(ring.control, PENDING, length);
      Atomics.notify(ring.control, PENDING);
    }
  }

  /**
   * Waits for the writer thread to make `ready(pending)` true; returns PENDING then. If the thread
   * has not started within the start timeout (its module could not load), takes its place: claims
   * the ring so a late start does nothing, writes what is queued here, and stays direct.
   */
  #waitUntil(ring: Ring, ready: (pending: number) => boolean): number {
    for (;;) {
      const pending = Atomics.load(ring.control, PENDING);
      if (ready(pending)) return pending;
      if (Atomics.wait(ring.control, PENDING, pending, this.options.startTimeoutMs ?? START_TIMEOUT_MS) !== "timed-out") continue;
      // A started thread that is slow (a stopped terminal) is waited for as long as it takes.
      if (Atomics.compareExchange(ring.control, STARTED, 0, -1) === 0) {
        this.#takeOver(ring, pending);
        return 0;
      }
    }
  }

  #takeOver(ring: Ring, pending: number): void {
    this.#direct = true;
    this.#ring = undefined;
    ring.worker.terminate();
    this.events.threadUnavailable();
    // Nothing was ever consumed, so what is pending is the start of the ring.
    this.#writeDirect(ring.data.slice(0, pending));
  }

  #start(): Ring {
    const init: FdRingInit = createFdRing(this.fd, RING_BYTES);
    const worker = new Worker(this.options.workerUrl ?? WORKER_URL);
    // Never what keeps derun alive: close() ends it, and exiting ends it anyway.
    worker.unref();
    worker.postMessage(init);
    const ring = { control: new Int32Array(init.control), data: new Uint8Array(init.data), worker };
    this.#ring = ring;
    return ring;
  }

  #writeDirect(bytes: Uint8Array): void {
    if (this.#failed || bytes.length === 0) return;
    try {
      writeAllSync(this.fd, bytes);
    } catch (error) {
      this.#fail((error as NodeJS.ErrnoException).code === "EPIPE");
    }
  }

  /** True once a write failed (reporting a failure the writer thread saw, once). */
  #checkFailure(): boolean {
    if (this.#failed) return true;
    const failure = this.#ring === undefined ? NO_FAILURE : Atomics.load(this.#ring.control, FAILURE);
    if (failure !== NO_FAILURE) this.#fail(failure === BROKEN_PIPE);
    return this.#failed;
  }

  #fail(brokenPipe: boolean): void {
    this.#failed = true;
    this.events.failed(brokenPipe);
  }
}
