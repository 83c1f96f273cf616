/**
 * Where the child's output goes: to derun's own stdout/stderr first, unchanged, then, once written
 * there, to the session's transcript (the side channel). When a reader of derun's output goes away (EPIPE:
 * `derun run -- yes | head`), the child is made to meet the same broken pipe, even when that
 * happens before the transport has returned the child.
 */
import type { DerunOutputChannel } from "../core/enums.ts";
import type { Logger } from "../core/log.ts";
import type { SessionWriter } from "../core/store.ts";
import type { OutputFlow, RunningChild } from "../core/transport.ts";
import { Capture } from "./capture.ts";
import { CommandLog } from "./command-log.ts";
import { channelsOfFd, createForwarder, type Forwarder } from "./forward.ts";
import { RecordGate, type CommandFilter } from "./record-gate.ts";

export class OutputPath {
  readonly capture: Capture;
  /** A shell session's per-command records, read from the captured bytes. */
  readonly commands: CommandLog | undefined;
  /** What of the shown output is recorded (derun pause, ignore rules). */
  readonly gate: RecordGate;
  readonly #forward: Forwarder;
  #child: RunningChild | undefined;
  /** derun's fds whose reader went away, remembered until the child exists. */
  readonly #brokenFds = new Set<number>();

  constructor(
    writer: SessionWriter,
    log: Logger,
    options: { readonly recordCommands?: boolean; readonly pausable?: boolean; readonly filter?: CommandFilter } = {},
  ) {
    this.capture = new Capture(writer, log);
    this.commands = options.recordCommands ? new CommandLog(writer, log) : undefined;
    this.gate = new RecordGate(
      writer,
      log,
      (channel, bytes, at) => this.#record(channel, bytes, at),
      () => this.capture.totals.bytes,
      {
        pausable: options.pausable,
        filter: options.filter,
      },
    );
    this.#forward = createForwarder((fd) => {
      this.#brokenFds.add(fd);
      if (this.#child) passBrokenPipe(this.#child, fd);
    }, log);
  }

  /**
   * The transport's `onOutput`: the user's stream first. A chunk is recorded once it was written
   * there, never before, so the transcript is always a prefix of what reached the screen, even
   * when derun is killed with output still on its way (the writer thread's ring holds up to 1 MiB).
   */
  readonly onOutput = (channel: DerunOutputChannel, bytes: Uint8Array): void => {
    this.#forward.write(channel, bytes, this.#recorder(channel));
  };

  /** Records what reached the screen (the chunk's view is valid only during the call). */
  #recorder(channel: DerunOutputChannel): (written: Uint8Array) => void {
    const at = new Date();
    return (written) => this.gate.take(channel, written, at);
  }

  /** A chunk the gate lets through: into output.bin, and to the command log of a shell. */
  #record(channel: DerunOutputChannel, written: Uint8Array, at: Date): void {
    this.capture.append(channel, written, at);
    if (this.commands === undefined) return;
    if (this.capture.failure === undefined) this.commands.observe(channel, written, at);
    else this.commands.stop();
  }

  /**
   * Runs `then` once the output handed over so far was written and recorded: an event recorded
   * there (a resize) lands at its place in the transcript, after the output that came before it.
   */
  afterOutput(then: () => void): void {
    this.#forward.afterWritten(then);
  }

  /** How fast derun's terminal takes the output: the transport's `outputFlow`. */
  get flow(): OutputFlow {
    return this.#flow;
  }

  /**
   * The transport's flow, with the terminal's channel (`pty`) open to the reader thread's own writes
   * (OutputShow): recorded here once shown, like any chunk of `onOutput`.
   */
  readonly #flow: OutputFlow = {
    held: () => this.#forward.flow.held(),
    readAhead: () => this.#forward.flow.readAhead(),
    whenFree: (progress) => this.#forward.flow.whenFree(progress),
    show: {
      fd: 1,
      idle: () => this.#forward.showIdle("pty"),
      shown: (bytes, outcome) => this.#forward.shown("pty", bytes, outcome, this.#recorder("pty")),
      attach: (control) => this.#forward.attachShow(control),
    },
  };

  /** The child now exists: it meets the broken pipes seen so far, and those to come. */
  attach(child: RunningChild): void {
    this.#child = child;
    for (const fd of this.#brokenFds) passBrokenPipe(child, fd);
  }

  /** Blocks until everything forwarded so far has reached derun's fds; forwarding goes on after it. */
  drain(): void {
    this.#forward.drain();
  }

  /** derun has taken its terminal back (the child continued in the foreground): the reader may write to it again. */
  terminalTaken(): void {
    this.#forward.resumeShows();
  }

  /** Blocks until everything forwarded has reached derun's fds (before the terminal is restored). */
  flush(): void {
    this.#forward.flush();
  }
}

/**
 * derun's stream `fd` lost its reader: let the child meet the broken pipe itself (its own next write
 * fails), or, when the transport cannot arrange that, send it SIGPIPE.
 */
function passBrokenPipe(child: RunningChild, fd: number): void {
  if (!child.closeOutput) return child.kill("SIGPIPE");
  for (const channel of channelsOfFd(fd)) child.closeOutput(channel);
}
