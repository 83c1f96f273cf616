/**
 * Keys from derun's terminal to the child's, copied by a thread (./key-relay-loop.ts): a key then
 * reaches the child without a turn of derun's event loop. For derun's own PTY that thread is the
 * one that reads the terminal's output (a {@link KeyRelaySeat} there): a key is read, written, and
 * its echo read and shown on one thread, as in `script`'s one loop (measured: with a thread for the
 * keys and one for the echo, a key's p50 was 0.08 ms above `script`'s, and its p99 1.1-1.3 times;
 * docs/fidelity.md). Other terminals get a thread of their own for it. The main thread keeps what
 * needs it: the stop key's pause, the end of stdin, keys the child's writer still holds, and
 * switching the relay off before anything else may read the terminal (derun stopping, in the
 * background, or done).
 *
 * Exactly one reader of stdin at a time: the thread reads only between `on()` and the end of
 * `off()`, and looks at the switch after each wait, before it reads.
 */
import { writeSync } from "node:fs";
import { openFifoPipe, type FifoPipe } from "./fifo-pipe.ts";
import type { KeyRelaySeatRef } from "../core/transport.ts";

const WORKER_URL = new URL("./key-relay.worker.ts", import.meta.url).href;
/** The thread's name (its `comm` on Linux, at most 15 bytes): tests and `top -H` find it by it. */
export const KEY_RELAY_THREAD = "derun-keys";

/** The switch's states, in `control[STATE]`; `unopened`: a seat's relay nobody took up yet. */
export const RELAY = { off: 0, on: 1, offRequested: 2, closing: 3, unopened: 4 } as const;
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
  | { readonly kind: "off" }
  /** The thread cannot wait for stdin: it never reads again (the main thread reads the keys). */
  | { readonly kind: "lost" };

/** Where the thread writes keys: the child's terminal (core/transport.ts DirectInput). */
export interface KeyRelayTarget {
  readonly fd: number;
  /** Above 0 while the main thread's writer holds keys for `fd`: the thread's keys then go through it. */
  readonly held: Int32Array;
  /** The relay's place in the thread that reads `fd`'s output, if that thread hosts it (a {@link KeyRelaySeat}). */
  readonly seat?: KeyRelaySeatRef;
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

/**
 * The relay: in the thread that reads `target`'s output when it hosts one (`target.seat`), else in a
 * thread of its own; undefined when neither can be had (then nothing was read).
 */
export function openKeyRelay(from: number, target: KeyRelayTarget, events: KeyRelayEvents, workerUrl = WORKER_URL): KeyRelay | undefined {
  if (target.seat instanceof KeyRelaySeat) return target.seat.open(events);
  let wake: FifoPipe | undefined;
  try {
    wake = openFifoPipe();
    const worker = new Worker(workerUrl, { name: KEY_RELAY_THREAD });
    worker.unref();
    const control = new Int32Array(new SharedArrayBuffer(4));
    const relay = new ThreadRelay(control, wake, events);
    worker.onmessage = (event: MessageEvent<KeyRelayMessage>) => relay.heard(event.data);
    // A thread that fails to load, or dies: nothing reads through it any more.
    worker.onerror = () => relay.gone();
    worker.postMessage({
      from,
      to: target.fd,
      control: control.buffer as SharedArrayBuffer,
      held: target.held.buffer as SharedArrayBuffer,
      wakeFd: wake.readEnd,
    } satisfies KeyRelayInit);
    return relay;
  } catch {
    wake?.close();
    return undefined;
  }
}

/**
 * A key relay's place in the thread that reads the output of the same terminal (./stream-reader.ts
 * hosts it, given `init`): made with the terminal, before that thread starts, since a thread busy
 * in its loop hears no later message; taken up by {@link openKeyRelay} once keys are to go through
 * it. The host passes on the thread's messages (`heard`) and says when it will never run or died
 * (`hostGone`). Its relay reads the stdin it was made for.
 */
export class KeyRelaySeat implements KeyRelaySeatRef {
  readonly keyRelaySeat = true as const;
  readonly init: KeyRelayInit;
  readonly #control: Int32Array;
  readonly #wake: FifoPipe;
  #relay: ThreadRelay | undefined;
  /** The host thread runs (it said "ready"). */
  #running = false;
  #gone = false;

  private constructor(init: KeyRelayInit, control: Int32Array, wake: FifoPipe) {
    this.init = init;
    this.#control = control;
    this.#wake = wake;
  }

  /** A seat for keys from `from` to `target`, or undefined when its wake pipe cannot be made. */
  static create(from: number, target: Omit<KeyRelayTarget, "seat">): KeyRelaySeat | undefined {
    let wake: FifoPipe;
    try {
      wake = openFifoPipe();
    } catch {
      return undefined;
    }
    const control = new Int32Array(new SharedArrayBuffer(4));
    Atomics.store(control, STATE, RELAY.unopened);
    const init = {
      from,
      to: target.fd,
      control: control.buffer as SharedArrayBuffer,
      held: target.held.buffer as SharedArrayBuffer,
      wakeFd: wake.readEnd,
    };
    return new KeyRelaySeat(init, control, wake);
  }

  /** A message of the host thread's relay. */
  heard(message: KeyRelayMessage): void {
    if (message.kind === "ready") this.#running = true;
    this.#relay?.heard(message);
  }

  /**
   * The host thread will never run (`ran` false: then nothing holds the wake pipe's read end, and it
   * is closed here), or it died: the relay reads nothing any more.
   */
  hostGone(ran: boolean): void {
    if (this.#gone) return;
    this.#gone = true;
    this.#relay?.gone(); // its ready() says false, or its events say lost
    if (ran) this.#wake.closeWriteEnd();
    else this.#wake.close();
  }

  open(events: KeyRelayEvents): KeyRelay | undefined {
    // Taken already, the host gone, or it ended the relay unopened (its streams ended first).
    if (this.#relay || this.#gone) return undefined;
    if (Atomics.compareExchange(this.#control, STATE, RELAY.unopened, RELAY.off) !== RELAY.unopened) return undefined;
    const relay = (this.#relay = new ThreadRelay(this.#control, this.#wake, events));
    if (this.#running) relay.heard({ kind: "ready" });
    return relay;
  }
}

class ThreadRelay implements KeyRelay {
  readonly #ready = Promise.withResolvers<boolean>();
  /** The thread reads, as far as the main thread knows: on() was last, and its "off" is not in yet. */
  #reading = false;
  #offs: (() => void)[] = [];
  #closed = false;

  constructor(
    private readonly control: Int32Array,
    private readonly wake: FifoPipe,
    private readonly events: KeyRelayEvents,
  ) {}

  get ready(): Promise<boolean> {
    return this.#ready.promise;
  }

  on(): void {
    if (this.#closed || this.#reading) return;
    this.#reading = true;
    Atomics.store(this.control, STATE, RELAY.on);
    this.#wakeThread();
  }

  off(): Promise<void> {
    if (!this.#reading) return Promise.resolve();
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#offs.push(resolve);
    // Already off by itself (a stop key, the end): its "off" is on the way.
    if (Atomics.compareExchange(this.control, STATE, RELAY.on, RELAY.offRequested) === RELAY.on) this.#wakeThread();
    return promise;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    Atomics.store(this.control, STATE, RELAY.closing);
    this.#wakeThread();
    // The thread sees the switch (or the pipe's hang-up), leaves its loop and closes the read end.
    this.wake.closeWriteEnd();
    this.#ready.resolve(false);
    this.#turnedOff();
  }

  heard(message: KeyRelayMessage): void {
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
      case "lost":
        return this.gone();
    }
  }

  #turnedOff(): void {
    this.#reading = false;
    for (const resolve of this.#offs.splice(0)) resolve();
  }

  /**
   * The thread died (or never loaded, or cannot wait for stdin). Its end of the wake pipe stays
   * open: a thread that ran closes it on its way out, and closing it again could close a reused fd.
   */
  gone(): void {
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
