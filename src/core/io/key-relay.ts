/**
 * Keys from derun's terminal to the child's, copied by a thread of their own (./key-relay.worker.ts):
 * a key then reaches the child without a turn of derun's event loop, and its echo is on the screen
 * as soon as under `script` (measured: a key's p99 through derun's event loop was about twice
 * `script`'s; docs/fidelity.md). The main thread keeps what needs it: the stop key's pause, the end
 * of stdin, keys the child's writer still holds, and switching the thread off before anything else
 * may read the terminal (derun stopping, in the background, or done).
 *
 * Exactly one reader of stdin at a time: the thread reads only between `on()` and the end of
 * `off()`, and looks at the switch after each wait, before it reads.
 */
import { writeSync } from "node:fs";
import { openFifoPipe, type FifoPipe } from "./fifo-pipe.ts";

const WORKER_URL = new URL("./key-relay.worker.ts", import.meta.url).href;
/** The thread's name (its `comm` on Linux, at most 15 bytes): tests and `top -H` find it by it. */
export const KEY_RELAY_THREAD = "derun-keys";

/** The switch's states, in `control[STATE]`. */
export const RELAY = { off: 0, on: 1, offRequested: 2, closing: 3 } as const;
export const STATE = 0;

/** What the main thread sends the thread, once. */
export interface KeyRelayInit {
  /** derun's stdin. */
  readonly from: number;
  /** The master of the child's terminal (non-blocking). */
  readonly to: number;
  readonly control: SharedArrayBuffer;
  /** KeyRelayTarget.held's buffer. */
  readonly held: SharedArrayBuffer;
  /** Readable when the main thread moved the switch. */
  readonly wakeFd: number;
  /** KeyRelayTarget.echoCpu. */
  readonly echoCpu?: SharedArrayBuffer;
}

/** What the thread tells the main thread, in order. */
export type KeyRelayMessage =
  | { readonly kind: "ready" }
  /** Keys the thread could not write: the main thread writes them, after what its writer holds. */
  | { readonly kind: "keys"; readonly keys: Uint8Array }
  /** The stop key went to the child; `rest` was typed after it and not forwarded. The thread stopped reading. */
  | { readonly kind: "stop-key"; readonly rest: Uint8Array }
  /** stdin ended (`error`: a read failed, a hung-up terminal). The thread stopped reading. */
  | { readonly kind: "end"; readonly error: boolean }
  /** The thread reads no more, after everything above. */
  | { readonly kind: "off" };

/** Where the thread writes keys: the child's terminal (core/transport.ts DirectInput). */
export interface KeyRelayTarget {
  readonly fd: number;
  /** Above 0 while the main thread's writer holds keys for `fd`: the thread's keys then go through it. */
  readonly held: Int32Array;
  /** Where the thread reading `fd`'s echo registered itself (./echo-cpu.ts), if it does. */
  readonly echoCpu?: SharedArrayBuffer;
}

export interface KeyRelayEvents {
  /** Keys for the child's writer, after what it holds (then `held` goes down by one). */
  keys(keys: Uint8Array): void;
  stopKey(rest: Uint8Array): void;
  end(error: boolean): void;
  /** The thread died: it reads no more, and never will. */
  lost(): void;
}

export interface KeyRelay {
  /** Resolves true once the thread runs, false when it cannot (then nothing was read). */
  readonly ready: Promise<boolean>;
  /** The thread reads stdin from now on (nothing else may). */
  on(): void;
  /** Resolves once the thread reads stdin no more and every event it sent before was handled. */
  off(): Promise<void>;
  /** Ends the thread; switch it off first. */
  close(): void;
}

/** The relay's thread, or undefined when it cannot be made here (no pipe for its wake-ups, no Worker). */
export function openKeyRelay(from: number, target: KeyRelayTarget, events: KeyRelayEvents, workerUrl = WORKER_URL): KeyRelay | undefined {
  let wake: FifoPipe | undefined;
  try {
    wake = openFifoPipe();
    const worker = new Worker(workerUrl, { name: KEY_RELAY_THREAD });
    worker.unref();
    return new ThreadRelay(from, target, events, worker, wake);
  } catch {
    wake?.close();
    return undefined;
  }
}

class ThreadRelay implements KeyRelay {
  readonly #control = new Int32Array(new SharedArrayBuffer(4));
  readonly #ready = Promise.withResolvers<boolean>();
  /** The thread reads, as far as the main thread knows: on() was last, and its "off" is not in yet. */
  #reading = false;
  #offs: (() => void)[] = [];
  #closed = false;

  constructor(
    from: number,
    target: KeyRelayTarget,
    private readonly events: KeyRelayEvents,
    worker: Worker,
    private readonly wake: FifoPipe,
  ) {
    worker.onmessage = (event: MessageEvent<KeyRelayMessage>) => this.#heard(event.data);
    // A thread that fails to load, or dies: nothing reads through it any more.
    worker.onerror = () => this.#gone();
    worker.postMessage({
      from,
      to: target.fd,
      control: this.#control.buffer as SharedArrayBuffer,
      held: target.held.buffer as SharedArrayBuffer,
      wakeFd: wake.readEnd,
      ...(target.echoCpu ? { echoCpu: target.echoCpu } : {}),
    } satisfies KeyRelayInit);
  }

  get ready(): Promise<boolean> {
    return this.#ready.promise;
  }

  on(): void {
    if (this.#closed || this.#reading) return;
    this.#reading = true;
    Atomics.store(this.#control, STATE, RELAY.on);
    this.#wakeThread();
  }

  off(): Promise<void> {
    if (!this.#reading) return Promise.resolve();
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#offs.push(resolve);
    // Already off by itself (a stop key, the end): its "off" is on the way.
    if (Atomics.compareExchange(this.#control, STATE, RELAY.on, RELAY.offRequested) === RELAY.on) this.#wakeThread();
    return promise;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    Atomics.store(this.#control, STATE, RELAY.closing);
    this.#wakeThread();
    // The thread sees the switch (or the pipe's hang-up), leaves its loop and closes the read end.
    this.wake.closeWriteEnd();
    this.#ready.resolve(false);
    this.#turnedOff();
  }

  #heard(message: KeyRelayMessage): void {
    switch (message.kind) {
      case "ready":
        return this.#ready.resolve(!this.#closed);
      case "keys":
        return this.events.keys(message.keys);
      case "stop-key":
        return this.events.stopKey(message.rest);
      case "end":
        return this.events.end(message.error);
      case "off":
        return this.#turnedOff();
    }
  }

  #turnedOff(): void {
    this.#reading = false;
    for (const resolve of this.#offs.splice(0)) resolve();
  }

  /**
   * The thread died (or never loaded). Its end of the wake pipe stays open: a thread that ran
   * closed it on its way out, and closing it again could close a reused fd.
   */
  #gone(): void {
    if (this.#closed) return;
    this.close();
    this.events.lost();
  }

  #wakeThread(): void {
    try {
      writeSync(this.wake.writeEnd, "x");
    } catch {
      // Closed, or full of wake-ups the thread has yet to take: it looks at the switch either way.
    }
  }
}
