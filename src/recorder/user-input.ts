/**
 * What the user types at derun's terminal that the child must see: keystrokes (for transports that
 * forward input), the end of input, a hang-up. Window resizes: ./resize-follower.ts.
 */
import { describeError } from "../core/errors.ts";
import { openKeyRelay, type KeyRelay } from "../io/key-relay.ts";
import type { Logger } from "../core/log.ts";
import { isTerminal } from "../tty/terminal.ts";
import type { RunningChild } from "../core/transport.ts";

const openStdin = () => Bun.file(0).stream().getReader();
/** How long reading waits after the stop key for the child's stop (a loaded machine reports it late). */
const STOP_KEY_WAIT_MS = 300;
/**
 * How long keys go through the event loop before the key relay's thread starts: it costs a
 * JavaScript VM of its own (a few MB, some ms of CPU), which a command over by then never pays.
 */
const RELAY_AFTER_MS = 20;
type StdinReader = ReturnType<typeof openStdin>;

/**
 * Forwards derun's stdin to the child byte for byte while started; stopped while derun is stopped
 * or in the background (a read of the terminal there would stop derun with SIGTTIN).
 *
 * At the end of stdin the child's terminal reads an end of file, as `script` gives it. A terminal
 * in raw mode ends only when it hangs up, and a read error means the same: then the child's
 * terminal hangs up too (SIGHUP, EIO), which ends a command that ignores SIGHUP, as without derun.
 *
 * On POSIX through Bun's own fd reader (`process.stdin` builds a Node stream on node:tty and
 * node:net, which loading costs every start); `Bun.file(0)` gives a new reader after a cancelled one,
 * `Bun.stdin` does not. The reader leaves the terminal's flags alone (it stays blocking for the
 * shell after derun). Windows keeps `process.stdin`, which owns the console's input mode there.
 *
 * From a terminal into a child's PTY that offers it (RunningChild.directInput), a thread of its own
 * takes over the reading once the run lasts ({@link RELAY_AFTER_MS}): each key then reaches the
 * child with no turn of derun's event loop (io/key-relay.ts). It stops where this reader
 * stops, and hands back the stop key's pause and the end of input.
 */
export class InputForwarder {
  readonly #stdinIsTerminal = isTerminal(0);
  #reader: StdinReader | undefined;
  /** The cancel of the previous reader: a new one may register fd 0 only once it is done. */
  #stopped: Promise<void> = Promise.resolve();
  #ended = false;
  #stopWindows: (() => void) | undefined;
  /** Keys read and not forwarded (read after a stop, or after the stop key): typed ahead for the resume. */
  #kept: Uint8Array[] = [];
  /** Reading paused at the stop key; reading resumes when no stop follows in time. */
  #stopKeyWait: ReturnType<typeof setTimeout> | undefined;
  /** The key relay: undefined until it is wanted, then its thread (once ready), or "unavailable". */
  #relay: KeyRelay | "starting" | "unavailable" | undefined;
  #relayTimer: ReturnType<typeof setTimeout> | undefined;
  /** The relay's thread reads the keys (or is about to, once the reader before it is gone). */
  #relaying = false;
  /** Counts stops: a hand-over to the relay that a stop overtook does not switch it on. */
  #stops = 0;
  /** The count of stops when the relay was last switched on. */
  #relayOnAt = -1;

  constructor(
    private readonly child: RunningChild,
    private readonly log: Logger,
  ) {}

  start(): void {
    const write = this.child.write?.bind(this.child);
    if (write === undefined || this.#ended || this.#reader || this.#stopWindows || this.#relaying) return;
    if (process.platform === "win32") {
      this.#stopWindows = forwardProcessStdin(write, this.log);
      return;
    }
    const relay = this.#relay;
    if (typeof relay === "object") return this.#relayFrom(relay, this.#stops);
    const reader = (this.#reader = openStdin());
    void this.#stopped.then(() => this.#pump(reader, write));
    if (relay === undefined && this.#stdinIsTerminal && this.child.directInput) {
      this.#relay = "starting";
      this.#relayTimer = setTimeout(() => this.#openRelay(), RELAY_AFTER_MS);
    }
  }

  /** Stops reading and ends the relay's thread: the run is over. */
  close(): Promise<void> {
    clearTimeout(this.#relayTimer);
    const stopped = this.stop();
    const relay = this.#relay;
    this.#relay = "unavailable";
    if (typeof relay === "object") void stopped.then(() => relay.close());
    return stopped;
  }

  /** Starts the relay's thread; once it runs, it takes over from Bun's reader (if that still reads). */
  #openRelay(): void {
    const directInput = this.child.directInput!;
    const relay = openKeyRelay(0, directInput, {
      keys: (keys) => directInput.takeHandedOver(keys),
      stopKey: (rest) => {
        if (rest.length > 0) this.#kept.push(rest);
        // A stop came since the relay was switched on (the child stopping, the end of the run)
        // before this message did: the keys after the stop key stay kept, and no pause restarts
        // the reading behind that stop's back.
        if (this.#stops === this.#relayOnAt) this.#pauseAtStopKey(this.child.write!.bind(this.child));
      },
      // Only from a terminal, which ends when it hangs up (as in #pump).
      end: () => {
        this.#relaying = false;
        this.#end("hang-up");
      },
      lost: () => {
        this.#relay = "unavailable";
        if (!this.#relaying) return;
        this.#relaying = false;
        this.log.log("warn", "key_relay_lost", {});
        this.start();
      },
    });
    if (relay === undefined) return void (this.#relay = "unavailable");
    // The child's terminal closes its master only once the thread writes to it no more (an fd
    // closed under the thread could be reused by a file of derun's meanwhile); no relay after that.
    directInput.attach(() => {
      this.#relay = "unavailable";
      this.#relaying = false;
      return relay.off().then(() => relay.close());
    });
    void relay.ready.then((running) => {
      if (this.#relay !== "starting") return relay.close(); // closed meanwhile
      if (!running) return void (this.#relay = "unavailable");
      this.#relay = relay;
      // Reading through Bun's reader now (not stopped, not paused at the stop key): hand over.
      if (this.#reader) void this.#handOver(relay);
    });
  }

  /**
   * From Bun's reader to the relay: the keys that reader read meanwhile go to the child first, then
   * the thread reads. A stop that comes meanwhile wins: those keys stay kept, as after any stop.
   */
  async #handOver(relay: KeyRelay): Promise<void> {
    const reader = this.#reader!;
    const stops = this.#stops;
    this.#reader = undefined; // #pump's read under way keeps what it gets
    this.#relaying = true; // to start() and stop(), the relay reads now
    const keep = (bytes: Uint8Array) => this.#kept.push(bytes.slice());
    this.#stopped = takeQueued(reader, keep)
      .then(() => reader.cancel())
      .catch(() => {});
    await this.#stopped;
    // A stop came meanwhile (its own logic holds), or the relay's thread died (its lost() restarted
    // Bun's reader).
    if (this.#stops !== stops || this.#ended || this.#relay !== relay) return;
    const write = this.child.write!.bind(this.child);
    this.#relaying = false;
    // The stop key among them: the pause it starts, as in #pump; the relay reads once it is over.
    if (this.#forwardUpToStopKey(this.takeKept(), write)) return this.#pauseAtStopKey(write);
    this.#relaying = true;
    this.#switchOn(relay);
  }

  /** The relay reads from now on, once the reader before it is gone (unless a stop comes first). */
  #relayFrom(relay: KeyRelay, stops: number): void {
    this.#relaying = true;
    void this.#stopped.then(() => {
      if (this.#relaying && this.#stops === stops && !this.#ended && this.#relay === relay) this.#switchOn(relay);
    });
  }

  #switchOn(relay: KeyRelay): void {
    this.#relayOnAt = this.#stops;
    relay.on();
  }

  /** Stops reading; resolves once the reader is gone. Keys it read meanwhile are kept ({@link takeKept}). */
  stop(): Promise<void> {
    clearTimeout(this.#stopKeyWait);
    this.#stopKeyWait = undefined;
    this.#stops++;
    const relay = this.#relay;
    if (typeof relay === "object") {
      this.#relaying = false;
      // Also while a reader before it is being cancelled: both are gone once this resolves.
      this.#stopped = Promise.all([this.#stopped, relay.off()]).then(() => {});
    }
    this.#stopWindows?.();
    this.#stopWindows = undefined;
    const reader = this.#reader;
    this.#reader = undefined;
    if (reader) {
      const keep = (bytes: Uint8Array) => this.#kept.push(bytes.slice());
      this.#stopped = takeQueued(reader, keep)
        .then(() => reader.cancel())
        .catch(() => {});
    }
    return this.#stopped;
  }

  /** The keys read since the last stop that never reached the child, in order; forgets them. */
  takeKept(): Uint8Array {
    const kept = Buffer.concat(this.#kept);
    this.#kept = [];
    return kept;
  }

  async #pump(reader: StdinReader, write: (bytes: Uint8Array) => void): Promise<void> {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (this.#reader !== reader) {
          // Stopped while this read was under way: what it read is the user's, typed ahead.
          if (!done && value.length > 0) this.#kept.push(value.slice());
          return;
        }
        if (done) return this.#end(this.#stdinIsTerminal ? "hang-up" : "end");
        if (this.#forwardUpToStopKey(value, write)) return this.#pauseAtStopKey(write);
      }
    } catch (error) {
      if (this.#reader !== reader) return;
      // Never on the screen: a hung-up terminal, most likely.
      this.log.log("warn", "stdin_error", { error: describeError(error) });
      this.#end("hang-up");
    }
  }

  /**
   * Writes `keys` up to and including the child's stop key, keeping what follows it (typed ahead
   * for whoever gets the terminal next); true when the stop key was among them.
   */
  #forwardUpToStopKey(keys: Uint8Array, write: (bytes: Uint8Array) => void): boolean {
    const stopKey = this.child.job?.stopKey?.();
    const at = stopKey === undefined ? -1 : keys.indexOf(stopKey);
    if (at === -1) {
      if (keys.length > 0) write(keys);
      return false;
    }
    write(keys.subarray(0, at + 1));
    if (at + 1 < keys.length) this.#kept.push(keys.slice(at + 1));
    return true;
  }

  /**
   * The child is about to stop: the keys typed next are for the shell that gets the terminal back,
   * so they stay in the terminal. A child that does not stop (it ignores SIGTSTP) gets them, and
   * the kept ones first, after a moment.
   */
  #pauseAtStopKey(write: (bytes: Uint8Array) => void): void {
    void this.stop();
    this.#stopKeyWait = setTimeout(() => {
      this.#stopKeyWait = undefined;
      const kept = this.takeKept();
      if (kept.length > 0) write(kept);
      this.start();
    }, STOP_KEY_WAIT_MS);
  }

  #end(how: "end" | "hang-up"): void {
    this.#ended = true;
    this.#reader = undefined;
    if (how === "end") this.child.endInput?.();
    else this.child.hangUp?.();
  }
}

const NOTHING_QUEUED: unique symbol = Symbol("nothing queued");

/**
 * Takes the chunks Bun's stream already read from the terminal and holds (it reads ahead, and a
 * cancel drops them), without waiting for more; a read still pending keeps what it gets too.
 */
async function takeQueued(reader: StdinReader, keep: (bytes: Uint8Array) => void): Promise<void> {
  for (;;) {
    const read = reader.read();
    // A read of a queued chunk is settled already, so it wins the race.
    const got = await Promise.race<Awaited<typeof read> | typeof NOTHING_QUEUED>([read, NOTHING_QUEUED]);
    if (got === NOTHING_QUEUED) {
      void read.then(
        ({ done, value }) => void (done || keep(value)),
        () => {},
      );
      return;
    }
    if (got.done) return;
    keep(got.value);
  }
}

function forwardProcessStdin(write: (bytes: Uint8Array) => void, log: Logger): () => void {
  const onData = (bytes: Uint8Array) => write(bytes);
  // A read error on derun's stdin (a hung-up terminal) ends the input, and never reaches the screen.
  const onError = (error: Error) => log.log("warn", "stdin_error", { error: describeError(error) });
  process.stdin.on("data", onData);
  process.stdin.on("error", onError);
  return () => {
    process.stdin.removeListener("data", onData);
    process.stdin.removeListener("error", onError);
    process.stdin.pause();
  };
}
