/**
 * A ring of tagged byte records in shared memory between derun's main thread and one helper thread:
 * one producer, one consumer. Fixed in size, so moving any amount of output allocates nothing per
 * chunk; one ring for all streams, so the order of records is the order across streams too. Used by
 * the writer of derun's own stdout/stderr (io/output-writer.ts: the thread consumes) and the
 * reader of the child's streams (./stream-reader.ts: the thread produces; a record of
 * length 0 ends its tag's stream).
 *
 * A record never crosses the end of the ring, so the consumer gets each as one view. Each side bumps
 * its own counter (PRODUCED, CONSUMED) and waits for the other's to change from the value it read
 * before looking at the ring, so no wake-up is missed between a look and a wait.
 */

/** Control slots. */
const BYTES = 0; // bytes in the ring
const RECORDS = 1; // records in the ring
export const PRODUCED = 2; // the producer's event counter: records committed, close
export const CONSUMED = 3; // the consumer's event counter: records released, stop requests
const CLOSED = 4; // the producer will commit nothing more
/**
 * 0 until the thread starts (then 1), or -1 once the main thread gave up waiting for it and does
 * its part itself: compare-and-swap (`claim`), so exactly one of them ever does.
 */
const STARTED = 5;
/** The most bytes the producer may have in the ring; 0: the whole ring (see RingConsumer.cap). */
const CAP = 6;
/** Free for the ring's user: the reader's switch of its own writes to the screen (./show-switch.ts). */
export const SHOW_SWITCH = 7;
/** One slot per tag (0..7): the writer's per-fd failure, the reader's per-stream stop request. */
const TAG_FLAGS = 8;
/**
 * 1 while a producer waits for room on fds of its own as well (RingProducer.askRoomCall): then each
 * CONSUMED event also calls the consumer's `roomCall`, which wakes it there.
 */
const ROOM_CALL = 16;
/**
 * 1 while the producer holds bytes it took from its source and has not committed yet (a read under
 * way): the source looks empty then, and the ring does too (RingProducer.taking).
 */
const TAKING = 17;
const CONTROL_SLOTS = 18;
/**
 * How long the main thread waits for its helper thread to start before doing the thread's part
 * itself: far beyond a thread's start (milliseconds), short enough not to look hung.
 */
export const THREAD_START_TIMEOUT_MS = 5000;

/** Tags are small integers: fds 1 and 2, or stream indexes. */
export const MAX_TAG = ROOM_CALL - TAG_FLAGS - 1;

export interface RecordRingInit {
  readonly control: SharedArrayBuffer;
  readonly data: SharedArrayBuffer;
  /** Two Int32 per record: tag, length. */
  readonly records: SharedArrayBuffer;
}

export function createRecordRing(bytes: number, records: number): RecordRingInit {
  return {
    control: new SharedArrayBuffer(CONTROL_SLOTS * Int32Array.BYTES_PER_ELEMENT),
    data: new SharedArrayBuffer(bytes),
    records: new SharedArrayBuffer(records * 2 * Int32Array.BYTES_PER_ELEMENT),
  };
}

/** What both ends share: the views, and the flags either may read. */
class RingEnd {
  readonly control: Int32Array;
  protected readonly data: Uint8Array;
  protected readonly records: Int32Array;
  /** This end's own position in the ring and in the record queue. */
  protected position = 0;
  protected record = 0;

  constructor(readonly init: RecordRingInit) {
    this.control = new Int32Array(init.control);
    this.data = new Uint8Array(init.data);
    this.records = new Int32Array(init.records);
  }

  get closed(): boolean {
    return Atomics.load(this.control, CLOSED) === 1;
  }

  /** Take the thread's part (`1`: the thread starting; `-1`: the main thread instead); true for exactly one. */
  claim(by: 1 | -1): boolean {
    return Atomics.compareExchange(this.control, STARTED, 0, by) === 0;
  }

  /**
   * Nothing more will be committed: said by the producer, or by the consumer for a producer thread
   * that died without saying it. Wakes the consumer; what was committed is still there to take.
   */
  close(): void {
    Atomics.store(this.control, CLOSED, 1);
    this.announce(PRODUCED);
  }

  /** Whether the thread has started (true), or the main thread took its part (false); undefined before either. */
  get threadStarted(): boolean | undefined {
    const state = Atomics.load(this.control, STARTED);
    return state === 0 ? undefined : state === 1;
  }

  /** A tag's flag (0 when unset). */
  flag(tag: number): number {
    return Atomics.load(this.control, TAG_FLAGS + tag);
  }

  setFlag(tag: number, value: number): void {
    Atomics.store(this.control, TAG_FLAGS + tag, value);
  }

  /** The other side's counter, to read before looking at the ring and then to wait on. */
  counter(slot: typeof PRODUCED | typeof CONSUMED): number {
    return Atomics.load(this.control, slot);
  }

  /** Blocks until `slot` differs from `seen` or `timeoutMs` passes (threads, and brief main-thread waits). */
  waitSync(slot: typeof PRODUCED | typeof CONSUMED, seen: number, timeoutMs = Infinity): "changed" | "timed-out" {
    return Atomics.wait(this.control, slot, seen, timeoutMs) === "timed-out" ? "timed-out" : "changed";
  }

  /** The same, without blocking the main thread's event loop. */
  async wait(slot: typeof PRODUCED | typeof CONSUMED, seen: number, timeoutMs = Infinity): Promise<"changed" | "timed-out"> {
    const wait = Atomics.waitAsync(this.control, slot, seen, timeoutMs);
    return (wait.async ? await wait.value : wait.value) === "timed-out" ? "timed-out" : "changed";
  }

  protected announce(slot: typeof PRODUCED | typeof CONSUMED): void {
    Atomics.add(this.control, slot, 1);
    Atomics.notify(this.control, slot);
  }
}

export class RingProducer extends RingEnd {
  /** Free contiguous bytes at the write position; 0 when full (or out of record slots). */
  room(): number {
    if (Atomics.load(this.control, RECORDS) === this.records.length / 2) return 0;
    const queued = Atomics.load(this.control, BYTES);
    const cap = Atomics.load(this.control, CAP);
    const free = cap > 0 ? Math.max(0, Math.min(cap, this.data.length) - queued) : this.data.length - queued;
    return Math.min(free, this.data.length - this.position);
  }

  /** Where the next record's bytes go: fill it in place (up to `room()` bytes), then commit. */
  region(length: number): Uint8Array {
    return this.data.subarray(this.position, this.position + length);
  }

  /** Appends the record whose bytes were just put in `region(length)`; length 0 ends the tag's stream. */
  commit(tag: number, length: number): void {
    this.commitQuietly(tag, length);
    this.publish();
  }

  /**
   * Appends a record without waking the consumer: it takes it when it next looks, or after
   * `publish()`. For a producer with more coming at once, so that the consumer wakes once per
   * batch rather than per record.
   */
  commitQuietly(tag: number, length: number): void {
    this.records[this.record * 2] = tag;
    this.records[this.record * 2 + 1] = length;
    this.record = (this.record + 1) % (this.records.length / 2);
    this.position = (this.position + length) % this.data.length;
    Atomics.add(this.control, BYTES, length);
    Atomics.add(this.control, RECORDS, 1);
  }

  /**
   * While `asked`, each CONSUMED event (room, a stop request) also calls the consumer's `roomCall`
   * (./stream-reader.ts: a byte on the producer's wake pipe), for a producer that waits for room in
   * a wait on fds (keys to relay meanwhile) rather than on CONSUMED. After asking, read the counter
   * again before waiting: an event between the two was not called for.
   */
  askRoomCall(asked: boolean): void {
    Atomics.store(this.control, ROOM_CALL, asked ? 1 : 0);
  }

  /**
   * Set before taking bytes from the source (a read), cleared once they are committed (or none
   * came): in between they are in neither place, and a consumer that must know whether anything
   * taken is still on its way looks here first (RingConsumer.taking), then at the ring.
   */
  taking(on: boolean): void {
    Atomics.store(this.control, TAKING, on ? 1 : 0);
  }

  /** Wakes the consumer for what was committed quietly. */
  publish(): void {
    this.announce(PRODUCED);
  }

  /** True when every record committed has been released. */
  get drained(): boolean {
    return Atomics.load(this.control, RECORDS) === 0;
  }

  /** Bytes committed and not yet released. */
  get queuedBytes(): number {
    return Atomics.load(this.control, BYTES);
  }

  /** Records committed and not yet released. */
  get queuedRecords(): number {
    return Atomics.load(this.control, RECORDS);
  }

  /** Records that may still be committed before one is released. */
  get freeRecords(): number {
    return this.records.length / 2 - this.queuedRecords;
  }
}

export class RingConsumer extends RingEnd {
  /** Called on each CONSUMED event while the producer asks for it (RingProducer.askRoomCall). */
  roomCall: (() => void) | undefined;

  protected override announce(slot: typeof PRODUCED | typeof CONSUMED): void {
    super.announce(slot);
    if (slot === CONSUMED && Atomics.load(this.control, ROOM_CALL) === 1) this.roomCall?.();
  }

  /**
   * The producer holds bytes it has taken and not committed (RingProducer.taking). Look here before
   * looking at the ring: once this reads false, what it held is in the ring, or released already.
   */
  get taking(): boolean {
    return Atomics.load(this.control, TAKING) === 1;
  }

  /** The oldest record not yet released (a view valid until `release()`), or undefined when none. */
  head(): { tag: number; bytes: Uint8Array } | undefined {
    if (Atomics.load(this.control, RECORDS) === 0) return undefined;
    const tag = this.records[this.record * 2]!;
    const length = this.records[this.record * 2 + 1]!;
    return { tag, bytes: this.data.subarray(this.position, this.position + length) };
  }

  /**
   * The head record joined with the records after it that have its tag and whose bytes follow on
   * in the ring (none after an end record or the ring's end), up to `maxBytes` in all: one view of
   * many small records (a PTY reads 4 KiB at a time) for a consumer that fell behind. Release it
   * with `release(records)`.
   */
  headRun(maxBytes: number): { tag: number; bytes: Uint8Array; records: number } | undefined {
    const queued = Atomics.load(this.control, RECORDS);
    if (queued === 0) return undefined;
    const slots = this.records.length / 2;
    const tag = this.records[this.record * 2]!;
    let length = this.records[this.record * 2 + 1]!;
    let records = 1;
    while (length > 0 && records < queued) {
      const slot = (this.record + records) % slots;
      const next = this.records[slot * 2 + 1]!;
      if (this.records[slot * 2] !== tag || next === 0 || length + next > maxBytes || this.position + length + next > this.data.length)
        break;
      length += next;
      records += 1;
    }
    return { tag, bytes: this.data.subarray(this.position, this.position + length), records };
  }

  /** Done with the head record (or the first `records`): their room goes back to the producer. */
  release(records = 1): void {
    let bytes = 0;
    for (let i = 0; i < records; i++) {
      bytes += this.records[this.record * 2 + 1]!;
      this.record = (this.record + 1) % (this.records.length / 2);
    }
    this.position = (this.position + bytes) % this.data.length;
    // The records before their bytes: a producer that sees the room free sees the records released.
    Atomics.sub(this.control, RECORDS, records);
    Atomics.sub(this.control, BYTES, bytes);
    this.announce(CONSUMED);
  }

  /**
   * Lets the producer fill no more than `bytes` of the ring from now on (0: all of it), as if it
   * were that small: a consumer that is holding back (its own reader is slow) keeps the producer
   * from reading far ahead of it.
   */
  cap(bytes: number): void {
    const before = Atomics.exchange(this.control, CAP, bytes);
    // More room than before: a producer waiting for room looks again.
    if (before !== 0 && (bytes === 0 || bytes > before)) this.announce(CONSUMED);
  }

  /** Wakes a producer waiting for room, for it to look at the flags (a stop request). */
  nudge(): void {
    this.announce(CONSUMED);
  }
}
