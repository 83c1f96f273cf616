/**
 * The key relay's thread (see ./key-relay.ts): while switched on, waits until derun's stdin is
 * readable, reads the keys and writes them to the child's terminal itself, as `script` does in its
 * one loop. Up to and including the terminal's stop key; what follows it is handed to the main
 * thread, and reading stops there, so keys typed after a Ctrl-Z stay for the shell. Keys it cannot
 * write now (the main thread's writer still holds keys, or the terminal's input queue is full) go
 * to the main thread too, in order. The end of stdin is the main thread's to handle.
 */
import { closeSync, readSync, writeSync } from "node:fs";
import { TerminalModes } from "../termios.ts";
import { openReadiness, type Readiness } from "./readiness.ts";
import { EchoFollower } from "./echo-cpu.ts";
import { RELAY, STATE, type KeyRelayInit, type KeyRelayMessage } from "./key-relay.ts";

declare const self: Worker;

/** As much as a terminal hands over in one read (a paste comes in pieces of its input buffer). */
const READ_BYTES = 64 * 1024;

self.onmessage = (event: MessageEvent<KeyRelayInit>) => {
  const init = event.data;
  const control = new Int32Array(init.control);
  const held = new Int32Array(init.held);
  // Two waits: for the wake pipe alone while off, for stdin too while on.
  const idle = openReadiness([init.wakeFd]);
  const reading = openReadiness([init.wakeFd, init.from]);
  const send = (message: KeyRelayMessage) => self.postMessage(message);
  try {
    new KeyRelayLoop(init, control, held, idle, reading, send).run();
  } finally {
    idle.close();
    reading.close();
    // Its end of the wake pipe is closed here, once nothing waits on it or reads it any more (the
    // main thread closes only its own end: an fd closed under a wait could be reused meanwhile).
    closeSync(init.wakeFd);
  }
  process.exit(0); // closed: ends this thread only (an error instead reaches the main thread's onerror)
};

class KeyRelayLoop {
  readonly #buffer = new Uint8Array(READ_BYTES);
  readonly #wakeBuffer = new Uint8Array(64);
  /** Brings the reader of the keys' echo to this thread's CPU (./echo-cpu.ts). */
  readonly #echo: EchoFollower | undefined;

  constructor(
    private readonly init: KeyRelayInit,
    private readonly control: Int32Array,
    private readonly held: Int32Array,
    private readonly idle: Readiness,
    private readonly reading: Readiness,
    private readonly send: (message: KeyRelayMessage) => void,
  ) {
    this.#echo = EchoFollower.open(init.echoCpu);
    send({ kind: "ready" });
  }

  run(): void {
    for (;;) {
      const state = Atomics.load(this.control, STATE);
      if (state === RELAY.closing) return;
      if (state === RELAY.offRequested) {
        this.#turnOff();
        continue;
      }
      const ready = (state === RELAY.on ? this.reading : this.idle).wait(-1);
      if (ready.includes(0)) this.#takeWakeBytes();
      // Looked at again after the wait: a switch-off that came meanwhile goes before any read.
      if (ready.includes(1) && Atomics.load(this.control, STATE) === RELAY.on) this.#relay();
    }
  }

  /** One read of stdin, forwarded. */
  #relay(): void {
    let length: number;
    try {
      length = readSync(this.init.from, this.#buffer, 0, this.#buffer.length, null);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EAGAIN" || code === "EINTR") return; // nothing there after all: wait again
      return this.#stop({ kind: "end", error: true });
    }
    if (length === 0) return this.#stop({ kind: "end", error: false });
    const keys = this.#buffer.subarray(0, length);
    const stopKey = TerminalModes.of(this.init.to)?.stopKey(); // as ChildJob.stopKey: the child's terminal's, now
    const at = stopKey === undefined ? -1 : keys.indexOf(stopKey);
    this.#write(at === -1 ? keys : keys.subarray(0, at + 1));
    if (at !== -1) this.#stop({ kind: "stop-key", rest: keys.slice(at + 1) });
  }

  /** Writes keys to the child's terminal; what cannot go now goes to the main thread's writer, after what it holds. */
  #write(keys: Uint8Array): void {
    let written = 0;
    if (Atomics.load(this.held, 0) === 0) {
      while (written < keys.length) {
        try {
          written += writeSync(this.init.to, keys, written, keys.length - written);
        } catch {
          break; // EAGAIN (the input queue is full) or EIO (hung up): the main thread's writer knows what to do
        }
      }
    }
    if (written === keys.length) return this.#echo?.follow(); // after the write: the key never waits for it
    // Counted before it is sent: later keys see it and follow it through the main thread.
    Atomics.add(this.held, 0, 1);
    this.send({ kind: "keys", keys: keys.slice(written) });
  }

  /** Reading stops here (a stop key, the end): the main thread hears why, then that it is off. */
  #stop(message: KeyRelayMessage): void {
    this.send(message);
    Atomics.compareExchange(this.control, STATE, RELAY.on, RELAY.offRequested);
    this.#turnOff();
  }

  #turnOff(): void {
    if (Atomics.compareExchange(this.control, STATE, RELAY.offRequested, RELAY.off) === RELAY.offRequested) this.send({ kind: "off" });
  }

  #takeWakeBytes(): void {
    try {
      readSync(this.init.wakeFd, this.#wakeBuffer, 0, this.#wakeBuffer.length, null);
    } catch {
      // EAGAIN: nothing left.
    }
  }
}
