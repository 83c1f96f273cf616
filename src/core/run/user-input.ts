/**
 * What the user does at derun's terminal that the child must see: keystrokes (for transports that
 * forward input), the end of input, a hang-up, and window resizes.
 */
import { describeError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { isTerminal, readWindowSize } from "../terminal.ts";
import type { RunningChild, WindowSize } from "../transport.ts";

const openStdin = () => Bun.file(0).stream().getReader();
/** How long reading waits after the stop key for the child's stop (a loaded machine reports it late). */
const STOP_KEY_WAIT_MS = 300;
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

  constructor(
    private readonly child: RunningChild,
    private readonly log: Logger,
  ) {}

  start(): void {
    const write = this.child.write?.bind(this.child);
    if (write === undefined || this.#ended || this.#reader || this.#stopWindows) return;
    if (process.platform === "win32") {
      this.#stopWindows = forwardProcessStdin(write, this.log);
      return;
    }
    const reader = (this.#reader = openStdin());
    void this.#stopped.then(() => this.#pump(reader, write));
  }

  /** Stops reading; resolves once the reader is gone. Keys it read meanwhile are kept ({@link takeKept}). */
  stop(): Promise<void> {
    clearTimeout(this.#stopKeyWait);
    this.#stopKeyWait = undefined;
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
        const stopKey = this.child.job?.stopKey?.();
        const at = stopKey === undefined ? -1 : value.indexOf(stopKey);
        if (at === -1) {
          write(value);
          continue;
        }
        write(value.subarray(0, at + 1));
        if (at + 1 < value.length) this.#kept.push(value.slice(at + 1));
        return this.#pauseAtStopKey(write);
      }
    } catch (error) {
      if (this.#reader !== reader) return;
      // Never on the screen: a hung-up terminal, most likely.
      this.log.log("warn", "stdin_error", { error: describeError(error) });
      this.#end("hang-up");
    }
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

/** The child's window size kept in step with derun's terminal. */
export interface ResizeFollower {
  /** Gives the child derun's window size now (after a stop, during which SIGWINCH went unheard). */
  sync(): void;
  stop(): void;
}

/**
 * Propagate window size changes of derun's terminal to the child, and sync it once now (a resize
 * during start-up happened before anyone listened), telling `onResized` each size that differs from
 * the last (`initial`, the size the child started with). The terminal may be on stderr alone
 * (`derun run -- make | tee log`), where `pipe` gives the child's stderr a terminal to resize.
 */
export function followResize(child: RunningChild, initial: WindowSize | undefined, onResized: (size: WindowSize) => void): ResizeFollower {
  const resize = child.resize?.bind(child);
  if (resize === undefined) return { sync: () => {}, stop: () => {} };
  let last = initial;
  const onResize = () => {
    const size = readWindowSize(1) ?? readWindowSize(2);
    if (!size) return;
    resize(size);
    if (size.cols === last?.cols && size.rows === last.rows) return;
    last = size;
    onResized(size);
  };
  process.on("SIGWINCH", onResize);
  onResize();
  return { sync: onResize, stop: () => process.removeListener("SIGWINCH", onResize) };
}
