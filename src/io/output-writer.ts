/**
 * Writing derun's own stdout and stderr on a thread, so reading the child's output does not wait for
 * each write to the terminal: Bun's PTY reader hands over chunks of up to 256 KiB, and writing each
 * on the main thread stopped the reading of the child's PTY while the terminal took it, so the child
 * sat blocked about half the time.
 * The thread takes the bytes through a fixed shared ring (../io/record-ring.ts). What it keeps:
 * - order across both fds (`cmd 2>&1 | less` gives derun one pipe as fd 1 and 2): one ring, one thread;
 * - back-pressure: a full ring makes the main thread wait, so a stopped terminal still stops the child;
 * - a backlog sized to the terminal's pace: a new chunk waits until less than a tenth of a second of
 *   what the terminal takes is queued (at least 8 KiB, ./terminal-pace.ts; and that until the thread's
 *   writes show the pace), so a Ctrl-C on a slow terminal is not followed by the whole ring;
 * - small output at once: a chunk of at most DIRECT_MAX_BYTES with nothing queued is written on the
 *   main thread (keystroke echo takes no thread hop; a command that prints little starts no thread),
 *   unless such a write was seen to wait for the terminal (a slow one): the event loop, which reads
 *   the keys, must not wait for it;
 * - terminal first: `written` runs once the bytes reached the fd (or were dropped after a failure),
 *   in order, on the main thread, with a view valid during the call (the ring's own copy);
 * - chunks another thread wrote itself (the PTY reader's, core/transport.ts OutputShow): allowed only
 *   while a direct write would be ({@link showIdle}), paused (with a handshake) before derun's
 *   terminal is restored, and handed over here only to be recorded, failures reported as ours.
 */
import { writeAllSync } from "../os/write-all.ts";
import type { ShowControl, ShowOutcome } from "../core/transport.ts";
import { TerminalPace } from "./terminal-pace.ts";
import { WrittenCallbacks } from "./written-callbacks.ts";
import {
  CONSUMED,
  createRecordRing,
  MAX_TAG,
  RingConsumer,
  RingProducer,
  THREAD_START_TIMEOUT_MS,
  type RecordRingInit,
} from "./record-ring.ts";

/** Ring size: a few of Bun's 256 KiB PTY reads, so the reader rarely waits on the writer. */
const RING_BYTES = 1024 * 1024;
const RING_RECORDS = 1024;
/** How often a wait for room looks again whether the ring is still there. */
const WAKE_CHECK_MS = 250;
/** Larger chunks go through the thread even when it is idle. */
const DIRECT_MAX_BYTES = 16 * 1024;
/** The writer thread's module, next to this one (also in the compiled executable: scripts/build.ts). */
const WORKER_URL = new URL("./output-writer.worker.ts", import.meta.url).href;

const NOTHING = new Uint8Array(0);

/** What the main thread sends the writer thread: the ring, and the fd of each record tag. */
export interface OutputWriterInit {
  readonly ring: RecordRingInit;
  readonly fds: readonly number[];
}

/** Per-fd flag values the writer thread sets when a write fails. */
export const WRITE_FAILED = { brokenPipe: 1, other: 2 } as const;

/** What the owner of an OutputWriter hears about. */
export interface OutputWriterEvents {
  /** A write to `fd` failed, once per fd; `brokenPipe` when its reader went away (EPIPE). Later bytes for it are dropped. */
  failed(fd: number, brokenPipe: boolean): void;
  /** The writer thread did not start in time: writes go on, on the main thread. */
  threadUnavailable(): void;
}

export interface OutputWriterOptions {
  /** The writer thread's module (tests point it at a module that never starts). */
  readonly workerUrl?: string;
  readonly startTimeoutMs?: number;
  /** The least backlog a chunk may find queued without waiting (default 8 KiB, ./terminal-pace.ts; tests raise it). */
  readonly minBacklogBytes?: number;
  /**
   * Every fd takes a write at once (a regular file, /dev/null): write on the calling thread and
   * start no thread, whose VM and hops cost memory and CPU for nothing there.
   */
  readonly threadless?: boolean;
}

export class OutputWriter {
  #ring: { producer: RingProducer; worker: Worker } | undefined;
  /** Records ever committed to the current ring. */
  #committed = 0;
  /** Records in the ring count as written once the thread released them: the ring's committed minus its queued. */
  readonly #callbacks = new WrittenCallbacks(() => (this.#ring ? this.#committed - this.#ring.producer.queuedRecords : Infinity));
  /** Tags whose fd failed. */
  readonly #failed = new Set<number>();
  /** The writer thread never started: everything is written on the main thread. */
  #direct = false;
  /** The terminal's pace, and the backlog it allows. */
  readonly #pace: TerminalPace;
  /** Bytes ever committed to the current ring. */
  #committedBytes = 0;
  /** The readers whose threads write to the screen themselves (OutputShow.attach), and whether they are paused. */
  readonly #showControls: ShowControl[] = [];
  #showsPaused = false;

  /** @param fds the fds this writer writes (derun's 1 and 2); each is a record tag, its index. */
  constructor(
    private readonly fds: readonly number[],
    private readonly events: OutputWriterEvents,
    private readonly options: OutputWriterOptions = {},
  ) {
    if (fds.length > MAX_TAG + 1) throw new RangeError(`OutputWriter: at most ${MAX_TAG + 1} fds`);
    this.#pace = new TerminalPace(RING_BYTES, options.minBacklogBytes);
    this.#direct = options.threadless === true;
  }

  /**
   * Write every byte of `bytes` to `fd` (one of `fds`) after everything written before, to any of
   * them; then call `written` (see the module doc; more than once, with consecutive parts, when the
   * bytes went through the ring in pieces). Never throws.
   */
  write(fd: number, bytes: Uint8Array, written?: (bytes: Uint8Array) => void): void {
    const tag = this.#tagOf(fd);
    const ring = this.#ring;
    if (this.#hasFailed(tag)) {
      // Nothing to write, but still reported in order, after what is queued: through the ring like
      // any other chunk (the thread drops it), so what waits is bounded by the ring, not held here.
      if (written === undefined) return;
      if (ring === undefined || this.#nothingQueued) {
        this.#callbacks.settle();
        written(bytes);
      } else this.#enqueue(ring.producer, tag, bytes, written);
      return;
    }
    const pace = this.#pace;
    if (this.#direct || (bytes.length <= DIRECT_MAX_BYTES && pace.directWritesAllowed && this.#nothingQueued)) {
      this.#callbacks.settle(); // what went before is written (drained), so recorded before this
      const started = performance.now();
      this.#writeDirect(tag, bytes);
      pace.directWriteTook(performance.now() - started);
      written?.(bytes);
      return;
    }
    const producer = (ring ?? this.#start()).producer;
    this.#measurePace(producer);
    if (producer.queuedBytes > pace.budget) this.#waitUntil(producer, () => producer.queuedBytes <= pace.budget);
    this.#enqueue(producer, tag, bytes, written);
  }

  /**
   * Whether another thread may write a small chunk to `fd` itself right now, as the main thread
   * would write it directly: nothing queued, no failure, the terminal keeps up, shows not paused.
   */
  showIdle(fd: number): boolean {
    const tag = this.fds.indexOf(fd);
    if (tag === -1 || this.#showsPaused || this.#hasFailed(tag) || !this.#pace.directWritesAllowed) return false;
    return this.#nothingQueued;
  }

  /**
   * A chunk another thread wrote to `fd` itself while {@link showIdle}: nothing is written, the
   * failure (if any) is reported as a write of ours would be, and `written` runs in order.
   */
  shown(fd: number, bytes: Uint8Array, outcome: ShowOutcome, written?: (bytes: Uint8Array) => void): void {
    const tag = this.#tagOf(fd);
    const ring = this.#ring;
    // Shown only while nothing was queued; should a chunk be queued still, its callback comes first.
    if (ring && !this.#nothingQueued) this.#waitUntil(ring.producer, () => ring.producer.drained);
    this.#callbacks.settle();
    if (outcome.slow) this.#pace.directWriteTook(Number.POSITIVE_INFINITY);
    if (outcome.failure !== undefined && !this.#hasFailed(tag)) this.#fail(tag, outcome.failure === "broken-pipe");
    written?.(bytes);
  }

  /** A reader whose thread writes to the screen itself (OutputShow.attach): paused by {@link drain}, settled by {@link afterWritten}. */
  attachShow(control: ShowControl): void {
    this.#showControls.push(control);
  }

  /** derun has its terminal again (the child continued in the foreground): other threads may write again. */
  resumeShows(): void {
    this.#showsPaused = false;
  }

  /**
   * Runs `then` once everything handed over before has been written (or dropped after a failure),
   * after their `written` callbacks, in order: for what must be recorded where the output then
   * stands (a resize). Never blocks.
   */
  afterWritten(then: () => void): void {
    // What another thread put on the screen already counts as handed over before.
    for (const control of this.#showControls) control.settle();
    const ring = this.#ring;
    if (ring === undefined || this.#nothingQueued) {
      this.#callbacks.settle();
      return then();
    }
    this.#callbacks.add(this.#committed, NOTHING, then);
    this.#watch(ring.producer);
  }

  /**
   * More is queued than the terminal takes in about a tenth of a second: a transport that reads when
   * it chooses waits ({@link whenFree}) before handing over more (core/transport.ts OutputFlow).
   */
  held(): boolean {
    const ring = this.#ring;
    if (this.#direct || ring === undefined) return false;
    this.#measurePace(ring.producer);
    return ring.producer.queuedBytes > this.#pace.budget;
  }

  /**
   * What a transport may read ahead of the chunks handed over (OutputFlow.readAhead): a quarter of
   * the backlog allowed, so that behind a slow terminal the two together stay near its pace's tenth
   * of a second; a fast terminal's backlog (up to the ring) leaves the reader plenty.
   */
  get readAheadAllowed(): number {
    return this.#pace.readAhead;
  }

  /**
   * Resolves once {@link held} is false, without blocking the event loop (keys and signals go on);
   * `progress` each time the thread wrote some of the queue meanwhile. A thread that never started
   * is replaced as in `write`.
   */
  async whenFree(progress?: () => void): Promise<void> {
    const startTimeout = this.options.startTimeoutMs ?? THREAD_START_TIMEOUT_MS;
    const since = performance.now();
    for (;;) {
      const ring = this.#ring;
      if (ring === undefined || this.#direct) return;
      const seen = ring.producer.counter(CONSUMED); // before looking: a release after this changes it
      if (!this.held()) return;
      // Bounded, so a ring closed meanwhile (close()) is noticed.
      if ((await ring.producer.wait(CONSUMED, seen, WAKE_CHECK_MS)) === "changed") progress?.();
      else if (ring.producer.threadStarted === undefined && performance.now() - since >= startTimeout && ring.producer.claim(-1)) {
        this.#takeOver();
      }
    }
  }

  /**
   * Blocks until every byte handed over has been written (or dropped after a failure); the thread
   * stays. Called before derun gives its terminal back while the child is stopped.
   */
  drain(): void {
    // First: no other thread's write may be under way or follow while the terminal is given back.
    this.#showsPaused = true;
    for (const control of this.#showControls) control.pause();
    const ring = this.#ring;
    if (ring === undefined) return;
    this.#waitUntil(ring.producer, () => ring.producer.drained);
    this.#callbacks.settle();
    this.fds.forEach((_, tag) => this.#hasFailed(tag));
  }

  /**
   * {@link drain}, then stops the thread. Called before derun restores its terminal or exits:
   * raw-mode output must not meet a cooked terminal.
   */
  close(): void {
    this.drain();
    const ring = this.#ring;
    if (ring === undefined) return;
    ring.producer.close();
    ring.worker.terminate();
    this.#ring = undefined;
  }

  /** Everything handed over is written (or dropped): no ring, a drained one, or the thread never started. */
  get #nothingQueued(): boolean {
    const ring = this.#ring;
    return this.#direct || ring === undefined || ring.producer.drained;
  }

  /** The record tag of `fd`, one of the fds this writer writes. */
  #tagOf(fd: number): number {
    const tag = this.fds.indexOf(fd);
    if (tag === -1) throw new RangeError(`OutputWriter: fd ${fd} is not one of ${this.fds.join(", ")}`);
    return tag;
  }

  #enqueue(producer: RingProducer, tag: number, bytes: Uint8Array, written?: (bytes: Uint8Array) => void): void {
    let offset = 0;
    while (offset < bytes.length) {
      if (this.#direct) {
        this.#callbacks.settle();
        this.#writeDirect(tag, bytes.subarray(offset));
        written?.(bytes.subarray(offset));
        return;
      }
      const room = producer.room();
      // Released records' room is reused below: their callbacks run first, while their bytes are
      // there. After reading the room: release() frees a record before its bytes, so every record
      // whose room was counted is seen released here.
      this.#callbacks.settle();
      if (room === 0) {
        this.#waitUntil(producer, () => producer.room() > 0);
        continue;
      }
      const length = Math.min(room, bytes.length - offset);
      const region = producer.region(length);
      region.set(bytes.subarray(offset, offset + length));
      producer.commit(tag, length);
      this.#committed += 1;
      this.#committedBytes += length;
      if (written) this.#callbacks.add(this.#committed, region, written);
      offset += length;
    }
    if (this.#callbacks.waiting) this.#watch(producer);
  }

  /** While callbacks wait, settle each time the thread releases a record of this ring. */
  #watch(producer: RingProducer): void {
    this.#callbacks.watch(producer, () => this.#ring?.producer === producer);
  }

  /**
   * Waits for the writer thread until `ready()`. If the thread has not even started within the
   * start timeout (its module could not load), takes its place: claims the ring so a late start
   * does nothing, writes what is queued here, in order, and stays direct.
   */
  #waitUntil(producer: RingProducer, ready: () => boolean): void {
    const timeout = this.options.startTimeoutMs ?? THREAD_START_TIMEOUT_MS;
    for (;;) {
      const seen = producer.counter(CONSUMED); // before looking: a release after this changes it
      this.#measurePace(producer);
      if (ready()) return;
      // A started thread that is slow (a stopped terminal) is waited for as long as it takes.
      if (producer.waitSync(CONSUMED, seen, timeout) === "timed-out" && producer.claim(-1)) return this.#takeOver();
    }
  }

  /** The pace, from what the thread has written of the current ring so far. */
  #measurePace(producer: RingProducer): void {
    const queued = producer.queuedBytes;
    this.#pace.look(this.#committedBytes - queued, queued);
  }

  #takeOver(): void {
    const ring = this.#ring!;
    this.#direct = true;
    this.#ring = undefined;
    ring.worker.terminate();
    this.events.threadUnavailable();
    const queued = new RingConsumer(ring.producer.init);
    for (let record = queued.head(); record; record = queued.head()) {
      this.#writeDirect(record.tag, record.bytes);
      queued.release();
    }
    // All written: no ring any more, every callback is due.
    this.#callbacks.settle();
  }

  #start(): { producer: RingProducer; worker: Worker } {
    const init = createRecordRing(RING_BYTES, RING_RECORDS);
    // The small heap, as the reader thread's (./stream-reader-thread.ts): it keeps nothing but the ring.
    const worker = new Worker(this.options.workerUrl ?? WORKER_URL, { smol: true });
    // Never what keeps derun alive: close() ends it, and exiting ends it anyway.
    worker.unref();
    worker.postMessage({ ring: init, fds: this.fds } satisfies OutputWriterInit);
    this.#ring = { producer: new RingProducer(init), worker };
    this.#committedBytes = 0;
    this.#pace.restart();
    for (const tag of this.#failed) this.#ring.producer.setFlag(tag, WRITE_FAILED.other);
    return this.#ring;
  }

  #writeDirect(tag: number, bytes: Uint8Array): void {
    if (this.#failed.has(tag) || bytes.length === 0) return;
    try {
      writeAllSync(this.fds[tag]!, bytes);
    } catch (error) {
      this.#fail(tag, (error as NodeJS.ErrnoException).code === "EPIPE");
    }
  }

  /** True once a write to the fd of `tag` failed (reporting a failure the writer thread saw, once). */
  #hasFailed(tag: number): boolean {
    if (this.#failed.has(tag)) return true;
    const flag = this.#ring?.producer.flag(tag) ?? 0;
    if (flag !== 0) this.#fail(tag, flag === WRITE_FAILED.brokenPipe);
    return this.#failed.has(tag);
  }

  #fail(tag: number, brokenPipe: boolean): void {
    this.#failed.add(tag);
    // A failure seen here: the thread drops this fd's records too, never writing after a failure.
    this.#ring?.producer.setFlag(tag, WRITE_FAILED.other);
    this.events.failed(this.fds[tag]!, brokenPipe);
  }
}
