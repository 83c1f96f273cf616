/**
 * The Transport interface: how a command is started and how its bytes reach derun.
 *
 * A transport is a plugin. Built-in ones live in src/plugins and are loaded lazily through the
 * registry; third-party ones are loaded from a file path or package name. A plugin module
 * default-exports the object returned by {@link defineTransport}. Creating the object must have no
 * side effects: native work (dlopen, PTY allocation) happens in `open()`.
 */
import type { DerunOutputChannel } from "./enums.ts";

/** What derun found out about its own standard streams before choosing a transport. */
export interface TerminalProbe {
  /** `isatty(0)`: OS terminal probing, not "is a character device". */
  readonly stdinIsTty: boolean;
  /** `isatty(1)`. */
  readonly stdoutIsTty: boolean;
  /** `isatty(2)`. */
  readonly stderrIsTty: boolean;
  /**
   * fds 1 and 2 are one stream: the same pipe, socket or terminal, or one open file description of a
   * regular file (`2>&1`). See tty/same-open-file.ts. Absent means no.
   */
  readonly stdoutIsStderr?: boolean;
  /** `process.platform` at probe time. */
  readonly platform: NodeJS.Platform;
  /** The window size of the controlling terminal when stdout is one. */
  readonly size?: WindowSize;
}

export interface WindowSize {
  readonly cols: number;
  readonly rows: number;
}

/** Capabilities as data, so the core never branches on a transport's name. */
export interface TransportCapabilities {
  /** The child sees a terminal on its stdin/stdout/stderr; output arrives on channel `pty`. */
  readonly tty: boolean;
  /** `resize()` changes the child's window size (and it receives SIGWINCH). */
  readonly resize: boolean;
  /** `kill()` delivers the named signal to the child. */
  readonly signals: boolean;
  /**
   * How the child's stdin is connected.
   * - `"forward"`: derun reads its own stdin and calls `write()` with the bytes (PTY transports).
   * - `"inherit"`: the child gets derun's stdin file descriptor itself; derun never reads it.
   */
  readonly input: "forward" | "inherit";
}

export interface TransportMeta {
  /** Unique name; for built-ins it equals the registry key and the recorded `transport_mode`. */
  readonly name: string;
  /** One line for humans. */
  readonly description: string;
}

export interface TransportOpenOptions {
  /** Working directory of the child. */
  readonly cwd: string;
  /** Complete environment of the child. */
  readonly env: Record<string, string | undefined>;
  /** Initial window size; PTY transports use it, others ignore it. */
  readonly size?: WindowSize;
  /**
   * Called for every chunk of output, in the order the child produced it, with the raw bytes
   * exactly as read. The callee must not keep a reference to `bytes` after returning: the
   * transport may reuse the buffer.
   */
  readonly onOutput: (channel: DerunOutputChannel, bytes: Uint8Array) => void;
  /**
   * derun's stdout and stderr are one stream (`2>&1`): give the child one stream for both, delivered
   * as channel `stdout`, so its writes keep their order. A transport that does so says
   * {@link RunningChild.outputsMerged}; one that does not keeps the channels apart.
   */
  readonly mergeOutputs?: boolean;
  /**
   * How fast derun's own terminal takes the output (see {@link OutputFlow}). A transport that reads
   * the child's output when it chooses (a thread of its own, an fd it polls) waits for it before
   * handing over more, so a slow terminal holds the child in the kernel, as without derun, and no
   * key or signal waits behind derun's queue. Optional for a transport: without it, `onOutput` may
   * block while derun's queue for its terminal is full.
   */
  readonly outputFlow?: OutputFlow;
  /** derun's own terminal, for a terminal transport (`capabilities.tty`) when derun has one (POSIX). */
  readonly terminal?: UserTerminalState;
  /**
   * Signals derun's caller left ignored (`nohup`, a script's `cmd &`): the child must start with
   * them ignored, as `exec` would leave them (POSIX; `spawnIgnoring` in derun/plugin does it for a
   * `Bun.spawn`, which resets every disposition). Absent or empty: none.
   */
  readonly ignoredSignals?: readonly NodeJS.Signals[];
  /**
   * Descriptors above 2 derun's caller left open (`cat <(echo hi)`, `3>&1`): the child must get each
   * at the same number, as `exec` would leave it (POSIX; `spawnStdio` in derun/plugin builds the
   * `stdio` array for a `Bun.spawn`, which passes nothing else). derun closes its own copies once
   * the child has started. Absent or empty: none.
   */
  readonly inheritedFds?: readonly number[];
}

/** Flow control from derun's own terminal (a serial line, a slow SSH link, a paused pager). */
export interface OutputFlow {
  /** More is queued for derun's terminal than it takes in about a tenth of a second. */
  held(): boolean;
  /**
   * How much a transport may read ahead of what it handed over: a part of what derun queues for its
   * terminal, so behind a slow one the child is held near the terminal's pace; Infinity while the
   * terminal keeps up. Read it again as output goes on.
   */
  readAhead(): number;
  /**
   * Resolves once {@link held} is false. `progress` is called each time the terminal took some of
   * the queue meanwhile (output is moving, though slowly: a drain after the child's exit goes on).
   */
  whenFree(progress?: () => void): Promise<void>;
  /**
   * Small chunks of channel `pty` may go to derun's fd by the transport's reader thread itself while
   * nothing is queued (see {@link OutputShow}); absent: every chunk goes through `onOutput`.
   */
  readonly show?: OutputShow;
}

/**
 * A transport's reader thread may write a small chunk to derun's fd itself, straight after reading
 * it, while `idle()` was last true: one thread wake-up less per chunk (a key's echo). It then hands
 * the chunk to `shown`, never to `onOutput`, so it is recorded once and never written twice.
 */
export interface OutputShow {
  /** derun's fd the chunks go to. */
  readonly fd: number;
  /** Nothing forwarded is queued, no write failed, derun's terminal is in derun's hands: a chunk may go out now. */
  idle(): boolean;
  /** A chunk the reader thread wrote itself (or tried to: `failure`), in order with `onOutput`'s: recorded, not written. */
  shown(bytes: Uint8Array, outcome: ShowOutcome): void;
  /** Registers the reader's side of it: derun pauses it before it restores its terminal, and settles it before recording an event. */
  attach(control: ShowControl): void;
}

/** What derun asks of a reader whose thread writes to its terminal (OutputShow). */
export interface ShowControl {
  /** No write of the thread any more, and none under way once this returns, until `idle()` is true again. */
  pause(): void;
  /**
   * Hands every chunk already on the screen to `shown` now (a write under way first), so that an
   * event recorded next (a resize) lands after the output that was on the screen before it.
   */
  settle(): void;
}

/** How a write of the reader thread went. */
export interface ShowOutcome {
  /** The write failed (EPIPE: "broken-pipe"; EIO and others: "other"); later bytes for the fd are dropped. */
  readonly failure?: "broken-pipe" | "other";
  /** It waited for the terminal (a slow one): small chunks stop going out directly. */
  readonly slow: boolean;
}

/** What a terminal transport needs to know of the user's terminal to make the child's look the same. */
export interface UserTerminalState {
  /** The user's terminal modes (a `struct termios` as tcgetattr filled it): the child's terminal starts with them. */
  readonly modes: Uint8Array;
  /**
   * Keys typed before derun switched its terminal to raw mode, in order, each end of file as the EOF
   * character. The user's terminal echoed them already: the child's terminal gets them first, unechoed.
   * Reading it switches derun's terminal to raw mode: read it once the child's terminal exists, just
   * before the child starts (a transport that fails before then leaves the keys to its fallback).
   */
  readonly typedAhead: Uint8Array;
  /** derun is a job of a job-control shell: run the child so that Ctrl-Z and friends can stop it. */
  readonly jobControl: boolean;
  /** derun is in its terminal's foreground; else the child starts in its terminal's background. */
  readonly foreground: boolean;
}

/** A child that can stop and be continued, as a shell's job (a terminal transport's child). */
export interface ChildJob {
  /**
   * `listener(signal)` each time the child stops (Ctrl-Z, SIGTTIN, SIGSTOP...), once what it wrote
   * before stopping has been delivered to `onOutput` (bounded: a stop must never hang): derun writes
   * that out and stops itself right after, so a byte delivered later reaches the screen after the
   * shell's "Stopped" line. With `openStreamReader`: wait while the fd is readable or the reader is
   * `pending`, looked at in that order. `stopping()` as soon as the stop is seen, before that
   * (derun stops reading keys there: the user's shell is about to get them).
   */
  onStop(listener: (signal: NodeJS.Signals) => void, stopping?: () => void): void;
  /**
   * The key that stops the child as soon as its terminal receives it (the terminal's suspend
   * character while it makes signals of keys), or undefined when there is none now. Optional.
   */
  stopKey?(): number | undefined;
  /**
   * Continues the stopped child in the foreground or the background of its terminal, after giving
   * it `typedAhead` (keys the user's terminal echoed while derun took it back), unechoed.
   * `userModes`: the user's terminal modes now, as derun takes its terminal over for the foreground.
   * A child that started in the background got the modes the terminal had then (a shell's line
   * editor's, at its prompt); on its first time in the foreground a shell would hand it the
   * terminal in its own saved modes: the transport copies these to the child's terminal then,
   * unless the child has changed its terminal's modes since it started.
   * `continues` false: the child is running (in the background, after a `bg`) and only takes the
   * foreground: no SIGCONT, as a shell's `fg` of a running job sends none. Default true.
   */
  resume(foreground: boolean, typedAhead?: Uint8Array, userModes?: Uint8Array, continues?: boolean): void;
}

/**
 * A terminal child's input that a thread of derun's may write keys to itself, straight from derun's
 * terminal (io/key-relay.ts): a key then takes `script`'s way, one thread from read to write.
 * The thread writes only while `held[0]` is 0, and hands `write` the keys it cannot write now.
 */
/**
 * The key relay's place in a reader thread, as the contract sees it: opaque. Only derun's own key
 * relay makes one (its `KeyRelaySeat` class) and knows what is inside; a transport passes on the
 * one its terminal came with, or none.
 */
export interface KeyRelaySeatRef {
  readonly keyRelaySeat: true;
}

export interface DirectInput {
  /** The master of the child's terminal, non-blocking; its modes say which key stops the child. */
  readonly fd: number;
  /**
   * Shared: above 0 while `write` holds keys it has not written yet. The thread adds one for each
   * chunk it hands over; `takeHandedOver` writes such a chunk after those and takes the one off.
   */
  readonly held: Int32Array;
  /**
   * Optional: the key relay's place in the thread that reads this terminal's output
   * (io/key-relay.ts), so that a key and its echo take one thread; without it the relay gets
   * a thread of its own.
   */
  readonly seat?: KeyRelaySeatRef;
  takeHandedOver(keys: Uint8Array): void;
  /**
   * Registers the thread's switch: the child's terminal closes `fd` only once `writesNoMore()`
   * resolved (the thread writes to it no more, and never will), so that no key goes to a closed fd.
   */
  attach(writesNoMore: () => Promise<void>): void;
}

/** How a child ended. */
export type ChildExit = { readonly kind: "exited"; readonly code: number } | { readonly kind: "signaled"; readonly signal: NodeJS.Signals };

/** A started child. Disposing it kills the child (SIGKILL) if it still runs and releases the PTY. */
export interface RunningChild extends AsyncDisposable {
  /** The child's process id. */
  readonly pid: number;
  /**
   * Which thread reads the child's output, for derun's log (`output_reader`): `native-pump`, or
   * `worker (<why no pump>)`. Optional: a transport that does not say is read as it always was.
   */
  readonly outputReader?: string;
  /** The child's stdout and stderr are one stream, delivered as channel `stdout` (see `mergeOutputs`). */
  readonly outputsMerged?: boolean;
  /**
   * Forward input bytes to the child, unchanged. Required when `capabilities.input` is `"forward"`;
   * an inheriting transport leaves it out.
   */
  write?(bytes: Uint8Array): void;
  /**
   * Keys may also reach the child by way of {@link DirectInput}, written by a thread of derun's with
   * no turn of its event loop. Optional: `write` takes every key without it.
   */
  readonly directInput?: DirectInput;
  /** Change the window size. Required when `capabilities.resize` is true; left out otherwise. */
  resize?(size: WindowSize): void;
  /** Send a signal to the child. A no-op when `capabilities.signals` is false. */
  kill(signal: NodeJS.Signals): void;
  /**
   * The reader of derun's own stream for `channel` went away (EPIPE: `derun run -- yes | head`).
   * Stop reading that channel and close derun's end of it, so the child's next write fails exactly
   * as it would without derun (EPIPE, or death by SIGPIPE). Optional: without it derun sends the
   * child SIGPIPE, which a child that ignores SIGPIPE never notices.
   */
  closeOutput?(channel: DerunOutputChannel): void;
  /** derun's stdin (not a terminal) reached its end: the child's terminal reads an end of file. */
  endInput?(): void;
  /** derun's terminal hung up: hang the child's terminal up too (SIGHUP, then EIO on its reads). */
  hangUp?(): void;
  /** The child as a job that stops and continues (terminal transports); derun stops and continues with it. */
  readonly job?: ChildJob;
  /**
   * Resolves once the child has exited and its output has been fully delivered to `onOutput`
   * (end of stream), or a bounded grace window after the exit has passed, whichever is first, so
   * trailing output is never lost and a background grandchild holding the stream cannot hang derun.
   * Terminal-close EIO on a PTY is a normal end of stream, not an error.
   */
  readonly exited: Promise<ChildExit>;
}

export interface Transport {
  readonly meta: TransportMeta;
  readonly capabilities: TransportCapabilities;
  /** Whether this transport can run here, given the probe (platform, terminals). */
  supports(probe: TerminalProbe): boolean;
  /**
   * Start `command` (argv; `command[0]` is looked up on PATH). Rejects with a {@link SpawnError}
   * when the command itself cannot be started (not found, not executable), and with any other
   * error when the transport is unavailable (no PTY could be allocated, say): a terminal transport
   * then gives way to `pipe`; any other fails the run.
   */
  open(command: readonly string[], options: TransportOpenOptions): Promise<RunningChild>;
}

/**
 * Identity helper: the object is checked against {@link Transport} and its methods' parameters are
 * typed from it (`supports(probe)`, `open(command, options)`), at no run-time cost.
 *
 * ```ts
 * import { defineTransport } from "derun/plugin";
 * export default defineTransport({ meta: { name: "sandbox", description: "..." }, ... });
 * ```
 */
export const defineTransport = (transport: Transport): Transport => transport;

/** The reason a child could not be started, so derun can exit 127 / 126 as a shell would. */
export class SpawnError extends Error {
  constructor(
    readonly errno: "ENOENT" | "EACCES" | "EOTHER",
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "SpawnError";
  }
}
