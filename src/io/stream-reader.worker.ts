/**
 * The reader thread of the child's output streams (see ./stream-reader.ts): waits until one is
 * readable, reads it straight into the shared ring, and repeats, taking the streams in the order
 * they became readable, so the ring's order is the child's order across streams too. A stream
 * ends at EOF, at a read error (EIO: a stream PTY whose child side is gone), or when the main
 * thread asks (its flag, plus a byte on `wakeFd` so a wait in progress returns at once); each end
 * is a record of length 0.
 *
 * The main thread is woken once per batch, not per read (when the streams pause or PUBLISH_BYTES
 * are in): each wake-up (Atomics.waitAsync) costs it memory that Bun gives back only slowly.
 *
 * A stream with a `show` fd (the PTY's, for derun's terminal): while the main thread's switch is on
 * (nothing queued for the screen, ./show-switch.ts) and the ring is empty, a small read is written
 * to that fd here, then committed marked as shown, so a key's echo takes one thread wake-up, as in
 * `script`, instead of two; the main thread only records it. It writes there through a
 * non-blocking open of its own of that terminal: what the terminal does not take at once goes the
 * main thread's way, so the thread never waits for the screen (the keys it relays must not).
 *
 * For derun's own PTY the thread also hosts the key relay (./key-relay-host.ts): its waits watch
 * derun's stdin too while the relay is on, also while it waits for room in the ring (the main
 * thread then calls it through its wake pipe), and it goes on serving the relay after the streams
 * ended until the main thread closes it.
 */
import { closeSync, fstatSync, readSync } from "node:fs";
import { nonBlockingTerminal, writeWhatGoes } from "./write-what-goes.ts";
import { CONSUMED, RingProducer, SHOW_SWITCH } from "./record-ring.ts";
import { openReadiness, type Readiness } from "./readiness.ts";
import { ShowSwitch } from "./show-switch.ts";
import { HostedKeyRelay } from "./key-relay-host.ts";
import { SHOW_BROKEN_PIPE, SHOW_FAILED, SHOW_MAX_BYTES, SHOW_SLOW, SHOWN } from "./show-marks.ts";
import { STOP_REQUESTED, type StreamReaderInit } from "./stream-reader-thread.ts";

declare const self: Worker;

/** A read of at least this much filled a PTY's whole buffer (the line discipline's 4 KiB less one). */
const BULK_READ_BYTES = 4095;
/** How long a stream that was read in bulk may pause before the main thread is woken for what it gave. */
const BULK_PAUSE_MS = 1;
/** How long after a chunk it wrote to the screen itself the thread lets the main thread sleep on. */
const SHOWN_PAUSE_MS = 2;
/** Wake the main thread at least every this many bytes. */
const PUBLISH_BYTES = 512 * 1024;
/** A write to the screen that took longer waited for the terminal (as io/terminal-pace.ts judges the main thread's). */
const SLOW_SHOW_MS = 5;
/**
 * The tier-up thresholds' scale on a thread that reads only pipes (Bun.unsafe.setJITPolicy, per VM):
 * reads of up to 64 KiB, so its loop runs few times per MB and the higher tiers' code and their
 * compilers' pages are not worth what they keep resident (1 GiB through pipes peaked 1-2 MB lower,
 * docs/performance.md). A terminal gives at most 4 KiB a read, and a thread that relays keys must
 * not keep an echo waiting in the interpreter: those keep the normal policy.
 */
const PIPES_JIT_POLICY = 1000;

self.onmessage = (event: MessageEvent<StreamReaderInit>) => {
  const { fds, wakeFd, showFds, keys } = event.data;
  if (keys === undefined && fds.every(isPipe)) Bun.unsafe.setJITPolicy(PIPES_JIT_POLICY);
  const ring = new RingProducer(event.data.ring);
  // The streams, the wake pipe, then the key relay's wake pipe and stdin (watched while it is on).
  const [relayWakeTag, keysTag] = [fds.length + 1, fds.length + 2];
  // Before claiming: if this fails, the main thread falls back to Bun's streams, nothing read.
  const readiness = openReadiness([...fds, wakeFd, ...(keys ? [keys.wakeFd, keys.from] : [])], [keysTag]);
  // Too late: the main thread already reads by itself.
  if (!ring.claim(1)) return readiness.close();
  const relay = keys && new HostedKeyRelay(keys, readiness, relayWakeTag, keysTag, (message) => self.postMessage({ relay: message }));
  // A terminal that cannot be opened so is left to the main thread's writer: this thread relays
  // keys, and must never wait for the screen.
  const showTo = (showFds ?? []).map((fd) => {
    const to = nonBlockingTerminal(fd);
    return to === fd && relay ? -1 : to;
  });
  try {
    new StreamsIntoRing(ring, readiness, fds, wakeFd, showTo, relay).run();
  } finally {
    for (const [index, fd] of showTo.entries()) if (fd >= 0 && fd !== showFds![index]) closeSync(fd);
    relay?.close();
    readiness.close();
    ring.close(); // wakes the main thread for anything unpublished too
  }
};

function isPipe(fd: number): boolean {
  try {
    return fstatSync(fd).isFIFO();
  } catch {
    return false; // the reading that follows meets the same error, and says so
  }
}

/** The thread's reading: each readable stream straight into the ring, until every stream has ended. */
class StreamsIntoRing {
  readonly #ring: RingProducer;
  readonly #readiness: Readiness;
  readonly #fds: readonly number[];
  readonly #wakeFd: number;
  /** The readiness index of the wake pipe (after the streams). */
  readonly #wakeTag: number;
  readonly #open: Set<number>;
  readonly #wakeBuffer = new Uint8Array(64);
  /** Bytes committed that the main thread was not woken for yet. */
  #unpublished = 0;
  /** The last read took a whole buffer's worth (see BULK_READ_BYTES). */
  #lastReadFull = false;
  /** The last read was written to the screen here. */
  #lastShown = false;
  /** Records committed so far, and the number of the last one not written to the screen here (-1: none). */
  #commits = 0;
  #lastUnshown = -1;
  /** Per stream: derun's fd its small chunks may go to directly (-1: none); all -1 after a failed write. */
  #showFds: readonly number[];
  readonly #show: ShowSwitch;
  /** The key relay of the same terminal, when this thread hosts it. */
  readonly #relay: HostedKeyRelay | undefined;

  constructor(
    ring: RingProducer,
    readiness: Readiness,
    fds: readonly number[],
    wakeFd: number,
    showFds: readonly number[],
    relay: HostedKeyRelay | undefined,
  ) {
    this.#ring = ring;
    this.#relay = relay;
    this.#showFds = showFds;
    this.#show = new ShowSwitch(ring.control, SHOW_SWITCH);
    this.#readiness = readiness;
    this.#fds = fds;
    this.#wakeFd = wakeFd;
    this.#wakeTag = fds.length;
    this.#open = new Set(fds.map((_, tag) => tag));
  }

  run(): void {
    while (this.#open.size > 0) {
      for (const tag of this.#open) if (this.#ring.flag(tag) === STOP_REQUESTED) this.#end(tag); // deleting while iterating a Set is safe
      if (this.#open.size === 0) break;
      this.#relay?.settle();
      for (const tag of this.#waitUntilReadable()) {
        if (tag === this.#wakeTag) this.#takeWakeByte();
        else if (this.#relay?.handle(tag)) continue;
        else if (this.#open.has(tag) && !this.#readOnce(tag)) break; // a stop came in: handle it first
      }
    }
    this.#serveRelay();
  }

  /** The streams ended: a key relay taken up is served until the main thread closes it. */
  #serveRelay(): void {
    const relay = this.#relay;
    if (relay === undefined) return;
    this.#publish();
    relay.streamsEnded();
    for (relay.settle(); !relay.done; relay.settle()) this.#waitForRelay(relay);
  }

  /** One wait with no stream watched: the wake pipe's bytes taken, the relay's fds handed to it. */
  #waitForRelay(relay: HostedKeyRelay): void {
    for (const tag of this.#readiness.wait(-1))
      if (tag === this.#wakeTag) this.#takeWakeByte();
      else relay.handle(tag);
  }

  /** The readable tags, waiting for some; nothing readable right now: the main thread gets what it has not seen, then wait. */
  #waitUntilReadable(): number[] {
    let ready = this.#unpublished > 0 ? this.#readiness.wait(0) : this.#readiness.wait(-1);
    // A read that filled a PTY's whole buffer: the child is writing in bulk and the next bytes are
    // a moment away; waiting that moment makes one larger delivery of many (small output, a key's
    // echo, is published at once).
    if (ready.length === 0 && this.#lastReadFull) ready = this.#readiness.wait(BULK_PAUSE_MS);
    // What is on the screen already is recorded a moment later: the terminal's program gets the
    // CPU to draw it first, not derun's main thread waking at the same instant.
    if (ready.length === 0 && this.#lastShown) ready = this.#readiness.wait(SHOWN_PAUSE_MS);
    this.#lastShown = false;
    if (ready.length === 0 && this.#unpublished > 0) {
      this.#publish();
      ready = this.#readiness.wait(-1);
    }
    return ready;
  }

  /** One read of stream `tag` into the ring; false when a stop request interrupted the wait for room. */
  #readOnce(tag: number): boolean {
    const room = this.#waitForRoom(() => this.#stopRequested());
    if (room === 0) return false;
    // From the read to the commit the bytes are in neither the fd nor the ring: the main thread's
    // `pending` says so meanwhile (a stop waits for them: ChildJob.onStop).
    this.#ring.taking(true);
    try {
      return this.#readInto(tag, room);
    } finally {
      this.#ring.taking(false);
    }
  }

  /** The read itself, of at most `room` bytes, and its commit. */
  #readInto(tag: number, room: number): boolean {
    let length: number;
    try {
      length = readSync(this.#fds[tag]!, this.#ring.region(room), 0, room, null);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") this.#end(tag); // EIO and the like end the stream, as EOF does
      return true;
    }
    if (length === 0) {
      this.#end(tag);
      return true;
    }
    if (length <= SHOW_MAX_BYTES && (this.#showFds[tag] ?? -1) >= 0 && this.#show.begin()) {
      try {
        // Only once everything before it is on the screen (delivered, or written here): then it is
        // next there too.
        // Two records' room: what the terminal does not take at once becomes a second one.
        if (this.#allBeforeShown() && this.#ring.freeRecords >= 2) return this.#showAndCommit(tag, length);
      } finally {
        this.#show.end(); // after the commit: a main thread that turned the switch off finds the record
      }
    }
    this.#ring.commitQuietly(tag, length);
    this.#lastUnshown = this.#commits++;
    this.#lastReadFull = length >= BULK_READ_BYTES;
    this.#unpublished += length;
    if (this.#unpublished >= PUBLISH_BYTES) this.#publish();
    return true;
  }

  /**
   * The main thread has delivered every record not written to the screen here: what the ring still
   * holds is on the screen already, waiting only to be recorded (records are released in order).
   */
  #allBeforeShown(): boolean {
    return this.#commits - this.#ring.queuedRecords > this.#lastUnshown;
  }

  /**
   * Writes the record just read straight to derun's fd (no wake-up of the main thread in between),
   * then commits it marked as shown: the main thread records it and never writes it again. What the
   * terminal did not take at once is committed after it as a record of its own, for the main
   * thread to write (marked slow: later chunks go its way). A failed write is reported in the mark,
   * as the main thread's own write would report it, and ends the direct writes.
   */
  #showAndCommit(tag: number, length: number): true {
    const started = performance.now();
    let mark = SHOWN;
    let shown = length;
    try {
      shown = writeWhatGoes(this.#showFds[tag]!, this.#ring.region(length));
      if (shown < length) mark |= SHOW_SLOW;
    } catch (error) {
      mark |= (error as NodeJS.ErrnoException).code === "EPIPE" ? SHOW_BROKEN_PIPE : SHOW_FAILED;
      this.#showFds = [];
    }
    if (performance.now() - started > SLOW_SHOW_MS) mark |= SHOW_SLOW;
    if (shown > 0) {
      this.#ring.commitQuietly(tag | mark, shown);
      this.#commits++;
    }
    if (shown < length) {
      this.#ring.commitQuietly(tag, length - shown);
      this.#lastUnshown = this.#commits++;
    }
    this.#unpublished += length;
    // What waits for the main thread's writer is not on the screen yet: no pause before the wake-up.
    this.#lastShown = shown === length;
    this.#lastReadFull = false;
    return true;
  }

  #takeWakeByte(): void {
    try {
      readSync(this.#wakeFd, this.#wakeBuffer, 0, this.#wakeBuffer.length, null);
    } catch {
      // EAGAIN: another wait already took the byte.
    }
  }

  /** Ends a stream: no more reading of it, and its end record (which needs a record's room). */
  #end(tag: number): void {
    this.#open.delete(tag);
    this.#readiness.watch(tag, false);
    this.#waitForRoom(() => false);
    this.#ring.commit(tag, 0); // wakes the main thread, for this and anything before it
    this.#lastUnshown = this.#commits++;
    this.#unpublished = 0;
  }

  #stopRequested(): boolean {
    for (const tag of this.#open) if (this.#ring.flag(tag) === STOP_REQUESTED) return true;
    return false;
  }

  /** Until the ring has room, or `interrupt()`; returns the room (0 when interrupted). */
  #waitForRoom(interrupt: () => boolean): number {
    for (;;) {
      const seen = this.#ring.counter(CONSUMED); // before looking: a release after this changes it
      const room = this.#ring.room();
      if (room > 0) return room;
      if (interrupt()) return 0;
      // Full: the main thread has not taken the bytes yet. Back-pressure reaches the child here.
      this.#publish();
      if (this.#relay && !this.#relay.done) this.#waitForRoomOrKeys(seen);
      else this.#ring.waitSync(CONSUMED, seen);
    }
  }

  /**
   * Waits for room, and meanwhile relays keys (a Ctrl-C must not wait behind output the screen has
   * not taken): the main thread calls this wait through the wake pipe on each release. The streams
   * are not watched meanwhile: there is no room to read them into.
   */
  #waitForRoomOrKeys(seen: number): void {
    const relay = this.#relay!;
    this.#ring.askRoomCall(true);
    try {
      if (this.#ring.counter(CONSUMED) !== seen) return; // room came before the call was asked for
      relay.settle();
      for (const tag of this.#open) this.#readiness.watch(tag, false);
      try {
        this.#waitForRelay(relay);
      } finally {
        for (const tag of this.#open) this.#readiness.watch(tag, true);
      }
    } finally {
      this.#ring.askRoomCall(false);
    }
  }

  #publish(): void {
    if (this.#unpublished === 0) return;
    this.#ring.publish();
    this.#unpublished = 0;
  }
}
