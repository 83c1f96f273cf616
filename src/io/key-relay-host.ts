/**
 * The key relay in a thread's waits: they watch the relay's wake pipe, and derun's stdin while the
 * relay is switched on, and hand what they find here. The host is the thread that reads the output
 * of the same terminal (./stream-reader.worker.ts: a key is read, written to the child's terminal,
 * and its echo read and shown on one thread, as in `script`'s one loop), or a thread of the relay's
 * own (./key-relay.worker.ts) for a terminal whose reader does not host it.
 */
import { closeSync } from "node:fs";
import { KeyRelayLoop } from "./key-relay-loop.ts";
import type { KeyRelayInit, KeyRelayMessage } from "./key-relay.ts";
import type { Readiness } from "./readiness.ts";

export class HostedKeyRelay {
  readonly #loop: KeyRelayLoop;
  readonly #readiness: Readiness;
  /** The readiness indexes of the relay's wake pipe and of stdin. */
  readonly #wakeTag: number;
  readonly #keysTag: number;
  #watchingKeys = false;
  #done = false;

  /** `wakeTag` and `keysTag`: where `readiness` has `init.wakeFd` and `init.from` (the latter unwatched). */
  constructor(init: KeyRelayInit, readiness: Readiness, wakeTag: number, keysTag: number, send: (message: KeyRelayMessage) => void) {
    this.#readiness = readiness;
    this.#wakeTag = wakeTag;
    this.#keysTag = keysTag;
    this.#loop = new KeyRelayLoop(init, send);
  }

  /** The relay is over: closed by the main thread, or ended unopened. */
  get done(): boolean {
    return this.#done;
  }

  /** Before each wait: acts on the switch, and watches stdin exactly while the relay is on. */
  settle(): void {
    if (this.#done) return;
    const reading = this.#loop.settle();
    if (reading === "closing") return this.#finish();
    if (reading === this.#watchingKeys) return;
    if (this.#readiness.watch(this.#keysTag, reading)) this.#watchingKeys = reading;
    else this.#loop.stopForGood(); // stdin cannot be waited for: the main thread reads the keys
  }

  /** Handles a readiness index of the relay's; false for any other. */
  handle(tag: number): boolean {
    if (tag === this.#wakeTag) this.#loop.takeWakeBytes();
    else if (tag === this.#keysTag) this.#loop.relay();
    else return false;
    return true;
  }

  /** The host's streams all ended: a relay nobody took up ends with them; one taken up is served until closed. */
  streamsEnded(): void {
    if (!this.#done && this.#loop.closeUnopened()) this.#finish();
  }

  /** The host thread is leaving: its end of the wake pipe goes, once nothing waits on it or reads it. */
  close(): void {
    this.#finish();
    closeSync(this.#loop.wakeFd);
  }

  #finish(): void {
    if (this.#done) return;
    this.#done = true;
    this.#readiness.watch(this.#keysTag, false);
    // Its write end may be closed: a hung-up pipe would be readable for ever.
    this.#readiness.watch(this.#wakeTag, false);
  }
}
