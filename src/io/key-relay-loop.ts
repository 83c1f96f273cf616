/**
 * The key relay's work on its thread (see ./key-relay.ts), whichever thread that is: its own
 * (./key-relay.worker.ts), or the thread that reads the output of the same terminal
 * (./stream-reader.worker.ts), which then does what `script` does in its one loop: a key read,
 * written to the child's terminal, and its echo read and shown, all on one thread.
 *
 * While switched on, each time derun's stdin is readable the keys are read and written to the
 * child's terminal. Up to and including the terminal's stop key; what follows it is handed to the
 * main thread, and reading stops there, so keys typed after a Ctrl-Z stay for the shell. Keys it
 * cannot write now (the main thread's writer still holds keys, or the terminal's input queue is
 * full) go to the main thread too, in order. The end of stdin is the main thread's to handle.
 */
import { readSync, writeSync } from "node:fs";
import { TerminalModes } from "../os/termios.ts";
import { POLL, PollSet } from "../os/poll-fd.ts";
import { RELAY, STATE, type KeyRelayInit, type KeyRelayMessage } from "./key-relay.ts";

/** As much as a terminal hands over in one read (a paste comes in pieces of its input buffer). */
const READ_BYTES = 64 * 1024;

export class KeyRelayLoop {
  readonly #buffer = new Uint8Array(READ_BYTES);
  readonly #wakeBuffer = new Uint8Array(64);
  readonly #control: Int32Array;
  readonly #held: Int32Array;
  /** A look at stdin before each read (made once: it runs on every key). */
  readonly #stdin: PollSet;

  constructor(
    private readonly init: KeyRelayInit,
    private readonly send: (message: KeyRelayMessage) => void,
  ) {
    this.#control = new Int32Array(init.control);
    this.#held = new Int32Array(init.held);
    this.#stdin = new PollSet([init.from], POLL.IN);
    send({ kind: "ready" });
  }

  /** The pipe the main thread wakes the thread by when it moves the switch. */
  get wakeFd(): number {
    return this.init.wakeFd;
  }

  /**
   * Acts on the switch, before each wait: a switch-off asked for is done (and said). Returns whether
   * stdin is to be watched now (the switch is on), or "closing" once the relay is over.
   */
  settle(): boolean | "closing" {
    const state = Atomics.load(this.#control, STATE);
    if (state === RELAY.closing) return "closing";
    if (state === RELAY.offRequested) this.#turnOff();
    return Atomics.load(this.#control, STATE) === RELAY.on;
  }

  /** Ends a relay the main thread never took up (STATE `unopened`); false when it did. */
  closeUnopened(): boolean {
    return Atomics.compareExchange(this.#control, STATE, RELAY.unopened, RELAY.closing) === RELAY.unopened;
  }

  /** stdin cannot be waited for here: the relay is over, and the main thread reads the keys. */
  stopForGood(): void {
    Atomics.store(this.#control, STATE, RELAY.closing);
    this.send({ kind: "lost" });
  }

  /** Takes the wake-up bytes (the switch is looked at by `settle`). */
  takeWakeBytes(): void {
    try {
      readSync(this.init.wakeFd, this.#wakeBuffer, 0, this.#wakeBuffer.length, null);
    } catch {
      // EAGAIN: nothing left.
    }
  }

  /**
   * stdin was readable: one read, forwarded, unless a switch-off came meanwhile (it goes before any
   * read). Looked at once more first: stdin is blocking (derun leaves its flags to the shell), and a
   * host thread may hand over a readiness its own wait for room already acted on; a read then would
   * wait for the next key, with the output unread and a switch-off unheard.
   */
  relay(): void {
    if (Atomics.load(this.#control, STATE) !== RELAY.on) return;
    if (this.#stdin.poll(0) === 0) return; // any event (a hang-up, an error too) is read: it ends the input
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
    if (Atomics.load(this.#held, 0) === 0) {
      while (written < keys.length) {
        try {
          written += writeSync(this.init.to, keys, written, keys.length - written);
        } catch {
          break; // EAGAIN (the input queue is full) or EIO (hung up): the main thread's writer knows what to do
        }
      }
    }
    if (written === keys.length) return;
    // Counted before it is sent: later keys see it and follow it through the main thread.
    Atomics.add(this.#held, 0, 1);
    this.send({ kind: "keys", keys: keys.slice(written) });
  }

  /** Reading stops here (a stop key, the end): the main thread hears why, then that it is off. */
  #stop(message: KeyRelayMessage): void {
    this.send(message);
    Atomics.compareExchange(this.#control, STATE, RELAY.on, RELAY.offRequested);
    this.#turnOff();
  }

  #turnOff(): void {
    if (Atomics.compareExchange(this.#control, STATE, RELAY.offRequested, RELAY.off) === RELAY.offRequested) this.send({ kind: "off" });
  }
}
