/**
 * A key's echo read on the CPU that just wrote the key (Linux).
 *
 * Under `script` one process writes a key to the child's terminal and reads its echo, so the echo
 * wakes a thread on the CPU it last ran on a moment ago. In derun the key relay's thread writes
 * the key (./key-relay.worker.ts) and the reader thread reads the echo (./stream-reader.worker.ts);
 * the kernel wakes the reader on the CPU it last ran on, which is often the other one and idle. On
 * a virtual machine an idle CPU is halted, and waking it goes through the hypervisor: measured in
 * the keystroke bench, the echo was slower by that wake-up (docs/fidelity.md). So, after writing
 * keys, the relay lets the reader run only on the relay's own CPU, and the reader takes its own
 * CPUs back once it has read more than a key's echo since (a PTY buffer's worth, 4 KiB, in any
 * number of reads), or at a read it does not write to the screen itself (output queued behind the
 * screen), so that a build's or a listing's output is never held to one CPU.
 *
 * Only ever narrows a reader thread of derun's to a CPU it was already allowed (the relay runs on
 * it), and gives back exactly the set the reader had; any failure leaves things as they are.
 */
import { ptr } from "bun:ffi";
import { libcCpu } from "../libc.ts";

/** The reader's thread id (0: not known), and whether the relay narrowed it (1) since it last took its CPUs back. */
const READER_TID = 0;
const NARROWED = 1;
/** The CPU the relay last narrowed the reader to. */
const CPU = 2;
/** A cpu_set_t of 1024 CPUs, glibc's size. */
const MASK_BYTES = 128;
/** Read since the narrowing, more than a key's echo: a PTY's whole buffer (the line discipline's 4 KiB). */
const ECHO_BYTES = 4096;

/** Shared by the reader thread and the key relay's thread of one child's terminal. */
export function createEchoCpu(): SharedArrayBuffer {
  return new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT);
}

/** The reader thread's side. */
export class EchoReader {
  readonly #words: Int32Array;
  /** The CPUs the thread may run on of its own. */
  readonly #own = new BigUint64Array(MASK_BYTES / 8);
  /** Bytes read while narrowed. */
  #readNarrowed = 0;

  private constructor(words: Int32Array) {
    this.#words = words;
  }

  /** Registers the calling thread as the reader, or undefined where this does not apply (not Linux, no such call). */
  static register(shared: SharedArrayBuffer): EchoReader | undefined {
    if (process.platform !== "linux") return undefined;
    try {
      const c = libcCpu();
      const reader = new EchoReader(new Int32Array(shared));
      if (c.sched_getaffinity(0, MASK_BYTES, ptr(reader.#own)) !== 0) return undefined;
      Atomics.store(reader.#words, READER_TID, c.gettid());
      return reader;
    } catch {
      return undefined;
    }
  }

  /** The thread read `length` bytes: past a key's echo since the narrowing, it takes its CPUs back. */
  read(length: number): void {
    if (Atomics.load(this.#words, NARROWED) !== 1) return void (this.#readNarrowed = 0);
    this.#readNarrowed += length;
    if (this.#readNarrowed >= ECHO_BYTES) this.release();
  }

  /** Takes the thread's own CPUs back, if the relay narrowed them. */
  release(): void {
    this.#readNarrowed = 0;
    if (Atomics.compareExchange(this.#words, NARROWED, 1, 0) !== 1) return;
    libcCpu().sched_setaffinity(0, MASK_BYTES, ptr(this.#own));
  }

  /** The thread is ending: the relay no longer places it (its id could go to another thread later). */
  unregister(): void {
    Atomics.store(this.#words, READER_TID, 0);
  }
}

/** The key relay's side. */
export class EchoFollower {
  readonly #words: Int32Array;
  readonly #mask = new BigUint64Array(MASK_BYTES / 8);

  private constructor(words: Int32Array) {
    this.#words = words;
  }

  static open(shared: SharedArrayBuffer | undefined): EchoFollower | undefined {
    if (shared === undefined || process.platform !== "linux") return undefined;
    try {
      libcCpu();
      return new EchoFollower(new Int32Array(shared));
    } catch {
      return undefined;
    }
  }

  /** Keys were just written: their echo is read on this CPU. One call only when the CPU changed or the reader took its CPUs back. */
  follow(): void {
    const tid = Atomics.load(this.#words, READER_TID);
    if (tid === 0) return; // the reader thread has not started (or cannot be placed)
    const c = libcCpu();
    const cpu = c.sched_getcpu();
    if (cpu < 0) return;
    if (Atomics.load(this.#words, NARROWED) === 1 && Atomics.load(this.#words, CPU) === cpu) return;
    this.#mask.fill(0n);
    this.#mask[cpu >> 6] = 1n << BigInt(cpu & 63);
    if (c.sched_setaffinity(tid, MASK_BYTES, ptr(this.#mask)) !== 0) return;
    // Marked after: a release before the mark leaves the reader narrowed with the mark set, so its
    // next release undoes it; marked before, that release could come first and be undone.
    Atomics.store(this.#words, CPU, cpu);
    Atomics.store(this.#words, NARROWED, 1);
  }
}
