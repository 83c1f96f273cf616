/**
 * Reading the child's output streams (derun's ends: pipes, stream PTYs, or the master of the
 * child's PTY) on one thread, into a fixed shared ring (./record-ring.ts). Bun's fd streams hand
 * every chunk over in a fresh buffer, and memory grew with the volume read; here the bytes go from
 * the kernel into the ring and are delivered as views of it. One thread and one ring for both
 * streams keep their order as Bun's single event loop did (`printf hello; printf -world >&2`
 * records `hello-world`), and a full ring stops the reading, so the child still feels back-pressure.
 *
 * The thread costs a JavaScript VM of its own, so it starts {@link THREAD_DELAY_MS} late: most
 * commands an agent runs are over by then, and `readNow` (the child exited) reads what the streams
 * hold on this thread instead. Until anything reads, the pipes hold the bytes (what was written
 * before then comes stream by stream, as it always did). If the thread cannot start, Bun's streams
 * take over; nothing was read by then, so no byte is lost or reordered.
 */
import { writeSync } from "node:fs";
import { createRecordRing, PRODUCED, RingConsumer, SHOW_SWITCH, THREAD_START_TIMEOUT_MS, type RecordRingInit } from "./record-ring.ts";
import { isShown, outcomeOf, streamOf } from "./show-marks.ts";
import { ShowSwitch } from "./show-switch.ts";
import { pumpStream } from "./pump.ts";
import {
  READER_WORKER_URL,
  STOP_REQUESTED,
  startReaderThread,
  type ReaderThread,
  type StreamReaderMessage,
} from "./stream-reader-thread.ts";
import type { KeyRelayMessage, KeyRelaySeat } from "./key-relay.ts";
import { readWhatIsThere } from "./read-what-is-there.ts";
import { startNativePump } from "./native-pump.ts";
import { hasInput } from "../os/poll-fd.ts";
import type { OutputFlow, OutputShow } from "../core/transport.ts";

/** Four of the 256 KiB pipe's worth: the thread rarely waits for the main thread. */
const RING_BYTES = 1024 * 1024;
const RING_RECORDS = 1024;
/** The most bytes handed over at once: records the main thread fell behind on are joined up to this. */
const DELIVERY_MAX_BYTES = 256 * 1024;
/** Deliveries before the main thread lets its event loop run (signals, the child's exit). */
const RECORDS_PER_TURN = 64;
/** How long after opening the streams the reader thread starts, unless `readNow` came first. */
export const THREAD_DELAY_MS = 20;
/** How often a main thread turning the show switch off looks again while the native pump writes (it cannot notify). */
const PUMP_SWITCH_CHECK_MS = 0.1;
export interface OutputStream {
  readonly fd: number;
  /** Each chunk, in order; `bytes` is valid only during the call. */
  readonly deliver: (bytes: Uint8Array) => void;
  /**
   * The thread may write a small chunk of this stream to `show.fd` itself while `show.idle()` (one
   * thread wake-up less per key's echo); such a chunk goes to `show.shown`, in order, not to `deliver`.
   */
  readonly show?: OutputShow;
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
  /**
   * Bytes read and not yet delivered: the thread has read them and not yet put them in the ring, the
   * ring holds a record, or a delivery waits for the flow. With the fd not readable (looked at
   * first), false means everything written to it so far has been handed over.
   */
  readonly pending: boolean;
  /**
   * Bytes the writers gave are not delivered yet: input in a stream still read (also once its
   * writer is gone), or {@link pending} (looked at in that order). False: all written so far was delivered.
   */
  readonly unread: boolean;
}

export interface StreamReaderOptions {
  /** The reader thread's module (tests point it at a module that never starts). */
  readonly workerUrl?: string;
  readonly startTimeoutMs?: number;
  /** Start the thread this long after opening (default {@link THREAD_DELAY_MS}). */
  readonly threadDelayMs?: number;
  /** The ring's size (default 1 MiB): what the thread may read ahead of the deliveries. */
  readonly ringBytes?: number;
  /**
   * derun's terminal's pace (core/transport.ts): the thread reads no further ahead than derun
   * queues for it, and while it is held nothing more is delivered, so behind a slow terminal the
   * kernel holds the child; `flowProgress` each time the terminal took some meanwhile.
   */
  readonly flow?: OutputFlow;
  readonly flowProgress?: () => void;
  /**
   * The key relay of the same terminal, for the thread to host (./key-relay-host.ts): a key and its
   * echo then take one thread, as in `script`. When the thread never runs, or dies, the seat hears it.
   */
  readonly keys?: KeyRelaySeat;
  /**
   * One stream (a PTY's master): read by the native pump (./native-pump.ts) instead of a Worker,
   * started when the Worker would be. The caller checked `nativePumpUnavailable()`. It hosts the key
   * relay as the Worker does. If it cannot start, the Worker reads.
   */
  readonly nativePump?: boolean;
}

export function openStreamReader(streams: readonly OutputStream[], options: StreamReaderOptions = {}): StreamReader {
  const init = createRecordRing(options.ringBytes ?? RING_BYTES, RING_RECORDS);
  const [only] = streams;
  const startWorker = () =>
    startReaderThread(options.workerUrl ?? READER_WORKER_URL, {
      ring: init,
      fds: streams.map((stream) => stream.fd),
      showFds: streams.map((stream) => stream.show?.fd ?? -1),
      ...(options.keys ? { keys: options.keys.init } : {}),
    });
  if (options.nativePump && only && streams.length === 1) {
    const keys = options.keys;
    // As late as the Worker would start, so a short command never compiles the pump; a pump that
    // cannot start (TinyCC failed, no pipe, no thread) has read nothing: the Worker reads instead.
    const startPump = (): ReaderThread | undefined => {
      const relay = keys && { init: keys.init, heard: (message: KeyRelayMessage) => keys.heard(message) };
      const pump = startNativePump(init, only.fd, only.show?.fd ?? -1, relay);
      return pump ? { native: pump, wake: pump.wake } : startWorker();
    };
    return new RingStreamReader(streams, init, startPump, options);
  }
  return new RingStreamReader(streams, init, startWorker, options);
}

/** The streams read by the thread through the ring, or by Bun's streams once the thread cannot. */
class RingStreamReader implements StreamReader {
  readonly #streams: readonly OutputStream[];
  #thread: ReaderThread | undefined;
  readonly #startTimer: ReturnType<typeof setTimeout>;
  readonly #ring: RingConsumer;
  readonly #ends: PromiseWithResolvers<void>[];
  readonly #ended: boolean[];
  readonly #stopped: boolean[];
  readonly #bunReaders: ({ cancel(): Promise<void> } | undefined)[];
  /** The thread is gone (finished, failed, or never started): its wake pipe is closed. */
  #threadGone = false;
  readonly #flow: OutputFlow | undefined;
  readonly #flowProgress: (() => void) | undefined;
  /** A delivery waits for the flow. */
  #held = false;
  /** The key relay the thread hosts (StreamReaderOptions.keys). */
  readonly #keys: KeyRelaySeat | undefined;
  /** The thread's own writes to the screen (OutputStream.show), when a stream allows them. */
  readonly #show: { readonly switch: ShowSwitch; readonly targets: readonly OutputShow[] } | undefined;

  constructor(streams: readonly OutputStream[], init: RecordRingInit, start: () => ReaderThread | undefined, options: StreamReaderOptions) {
    const delayMs = options.threadDelayMs ?? THREAD_DELAY_MS;
    const startTimeoutMs = options.startTimeoutMs ?? THREAD_START_TIMEOUT_MS;
    this.#flow = options.flow;
    this.#flowProgress = options.flowProgress;
    this.#keys = options.keys;
    this.#streams = streams;
    this.#ring = new RingConsumer(init);
    // From the first read: a thread that started with the whole ring could read a megabyte ahead
    // of a slow terminal before the first delivery.
    if (this.#flow) this.#capReadAhead(this.#flow);
    this.#ends = streams.map(() => Promise.withResolvers<void>());
    this.#ended = streams.map(() => false);
    this.#stopped = streams.map(() => false);
    this.#bunReaders = streams.map(() => undefined);
    const targets = streams.flatMap((stream) => (stream.show ? [stream.show] : []));
    if (targets.length > 0) {
      const checkMs = options.nativePump ? PUMP_SWITCH_CHECK_MS : undefined;
      const show = (this.#show = { switch: new ShowSwitch(this.#ring.control, SHOW_SWITCH, checkMs), targets });
      const control = { pause: () => show.switch.off(this.#gone), settle: () => this.#settleShown() };
      for (const target of targets) target.attach(control);
      this.#switchShows();
    }
    this.#startTimer = setTimeout(() => this.#startThread(start), delayMs);
    void this.#deliverRecords(delayMs + startTimeoutMs);
  }

  #startThread(start: () => ReaderThread | undefined): void {
    if (this.#ring.threadStarted !== undefined) return; // readNow or a stop came first
    const thread = (this.#thread = start());
    // A module that fails to load says so at once: no need to wait for the start timeout. A thread
    // that dies after it started leaves its ring open: close it, and the rest goes to Bun's streams.
    thread?.worker?.addEventListener("error", () => {
      this.#keys?.hostGone(this.#ring.threadStarted === true);
      if (this.#ring.claim(-1)) this.#readRestWithBun();
      else this.#ring.close();
    });
    const keys = this.#keys;
    if (thread?.worker && keys)
      thread.worker.addEventListener("message", (event: MessageEvent<StreamReaderMessage>) => keys.heard(event.data.relay));
    if (thread && (keys || thread.native)) {
      // Waiting for room, the thread also waits for keys (the pump always waits so): it is woken
      // through its pipe then. One byte per release while it asks, and it takes up to 64 a
      // wake-up: the pipe never fills.
      this.#ring.roomCall = () => {
        if (!this.#threadGone) writeSync(thread.wake.writeEnd, "x");
      };
    }
    // No thread at all (no pipe for its wake-ups, or no Worker): Bun's streams from here.
    if (thread === undefined && this.#ring.claim(-1)) this.#readRestWithBun();
  }

  readNow(): void {
    // Claiming means the thread never reads: not started, or it will find the ring taken.
    if (!this.#ring.claim(-1)) return;
    this.#stopThread();
    this.#ring.close(); // the delivery loop, waiting for a thread, ends
    this.#streams.forEach((stream, index) => {
      if (this.#ended[index]) return;
      if (this.#stopped[index]) {
        readWhatIsThere(stream);
        return this.#finish(index);
      }
      if (readWhatIsThere(stream) === "ended") return this.#finish(index);
      // Still open (a grandchild holds it) or still coming: Bun's reader takes the rest.
      const reader = Bun.file(stream.fd).stream().getReader();
      this.#bunReaders[index] = reader;
      void pumpStream(reader, stream.deliver).then(() => this.#finish(index));
    });
  }

  ended(index: number): Promise<void> {
    return this.#ends[index]!.promise;
  }

  /** The thread may fill no more of the ring than the flow allows a reader to read ahead. */
  #capReadAhead(flow: OutputFlow): void {
    const allowed = flow.readAhead();
    this.#ring.cap(Number.isFinite(allowed) ? Math.max(1, Math.round(allowed)) : 0);
  }

  get pending(): boolean {
    // The thread's read under way first: the fd looks empty then, and its bytes are not in the ring
    // yet. Once it reads false they are in the ring, or handed over (on this thread) already. A
    // thread ended in the middle of a read (terminated) holds nothing any more.
    return this.#held || (!this.#threadGone && this.#ring.taking) || this.#ring.head() !== undefined;
  }

  get unread(): boolean {
    const input = this.#streams.some((stream, index) => !this.#ended[index] && !this.#stopped[index] && hasInput(stream.fd));
    return input || this.pending;
  }

  async stop(index: number): Promise<void> {
    if (this.#stopped[index] || this.#ended[index]) return this.#ends[index]!.promise;
    this.#stopped[index] = true;
    const bunReader = this.#bunReaders[index];
    if (bunReader) {
      return bunReader.cancel().then(() => {
        readWhatIsThere(this.#streams[index]!);
        this.#finish(index);
      });
    }
    // Not started yet: claiming the ring means it never will; the other streams go to Bun.
    if (this.#ring.claim(-1)) return this.#readRestWithBun();
    if (this.#threadGone) return this.#ends[index]!.promise;
    this.#ring.setFlag(index, STOP_REQUESTED);
    this.#ring.nudge(); // a thread waiting for room
    writeSync(this.#thread!.wake.writeEnd, "x"); // a thread waiting for readiness (its pipe is open: threadGone is false)
    return this.#ends[index]!.promise; // its end record: from then on the thread leaves the fd alone
  }

  /** Hands each record the thread commits to its stream, in ring order, until Bun's streams take over. */
  async #deliverRecords(startTimeoutMs: number): Promise<void> {
    const ring = this.#ring;
    let turn = 0;
    for (;;) {
      if (ring.threadStarted === false) return; // Bun's streams took over
      // Before looking at the ring: the thread closes it after its last commit, so closed and then
      // empty is the end. Read after an empty look, the thread may have committed (its last bytes,
      // its end record) and closed in between, and those records would never be delivered.
      const closed = ring.closed;
      const seen = ring.counter(PRODUCED); // before looking: a commit after this changes it
      const record = ring.headRun(DELIVERY_MAX_BYTES);
      if (record !== undefined) {
        const shown = isShown(record.tag);
        const stream = this.#streams[streamOf(record.tag)]!;
        // A shown record is on the screen already: it waits for nothing.
        if (this.#flow && record.bytes.length > 0 && !shown) {
          // The thread reads no further ahead than derun queues for its terminal; behind a slow
          // one the ring stays full, the thread stops reading, and the kernel holds the child, as
          // it would without derun.
          this.#capReadAhead(this.#flow);
          if (this.#flow.held()) {
            this.#held = true;
            await this.#flow.whenFree(this.#flowProgress);
            this.#held = false;
            continue;
          }
        }
        // Also after a stop: these bytes were read before it, and belong in the recording.
        if (record.bytes.length === 0) this.#finish(record.tag);
        else if (shown) stream.show!.shown(record.bytes, outcomeOf(record.tag));
        else stream.deliver(record.bytes);
        // Before the release: the thread writes only once the ring is empty, so by then the switch
        // says whether what was just handed over is still queued.
        this.#switchShows();
        ring.release(record.records);
        if (++turn % RECORDS_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
        continue;
      }
      if (closed) return this.#readRestWithBun();
      const timeout = ring.threadStarted === undefined ? startTimeoutMs : Infinity;
      if ((await ring.wait(PRODUCED, seen, timeout)) === "timed-out" && ring.claim(-1)) return this.#readRestWithBun();
    }
  }

  /**
   * Bun's streams read what the thread did not: all of it when the thread never started, or what
   * is left when it ended without ending a stream (it failed). The thread no longer reads, so
   * nothing is read twice or out of order.
   */
  #readRestWithBun(): void {
    this.#stopThread();
    this.#streams.forEach((stream, index) => {
      if (this.#ended[index]) return;
      if (this.#stopped[index]) {
        readWhatIsThere(stream);
        return this.#finish(index);
      }
      const reader = Bun.file(stream.fd).stream().getReader();
      this.#bunReaders[index] = reader;
      void pumpStream(reader, stream.deliver).then(() => this.#finish(index));
    });
  }

  /** The thread may write to the screen itself while every stream's target is idle; otherwise not (and none under way). */
  #switchShows(): void {
    const show = this.#show;
    if (show === undefined) return;
    if (!this.#threadGone && show.targets.every((target) => target.idle())) show.switch.on();
    else show.switch.off(this.#gone);
  }

  /** The thread no longer runs: nothing to wait for. */
  readonly #gone = () => this.#threadGone || this.#ring.closed;

  /**
   * Hands over now the records at the ring's head that are on the screen already (ShowControl.settle):
   * the switch off first, so a write under way is committed. The first record not shown is not on
   * the screen yet; it stays for the delivery loop (which, waiting at an await, holds no record but
   * one not shown).
   */
  #settleShown(): void {
    const show = this.#show;
    if (show === undefined) return;
    show.switch.off(this.#gone);
    for (;;) {
      const record = this.#ring.headRun(DELIVERY_MAX_BYTES);
      if (record === undefined || !isShown(record.tag) || record.bytes.length === 0) break;
      this.#streams[streamOf(record.tag)]!.show!.shown(record.bytes, outcomeOf(record.tag));
      this.#ring.release(record.records);
    }
    this.#switchShows();
  }

  #stopThread(): void {
    // The main thread reads instead: a thread that never claimed the ring never hosted the relay.
    this.#keys?.hostGone(this.#ring.threadStarted === true);
    clearTimeout(this.#startTimer);
    this.#threadGone = true;
    // The pump is never ended from here: it has closed the ring (it is leaving), or never claimed it.
    this.#thread?.worker?.terminate();
    this.#thread?.wake.close();
  }

  #finish(index: number): void {
    this.#ended[index] = true;
    this.#ends[index]!.resolve();
  }
}
