/**
 * Forwarding the child's output to derun's own stdout and stderr, unchanged.
 */
import { fstatSync } from "node:fs";
import type { DerunOutputChannel } from "../core/enums.ts";
import type { Logger } from "../core/log.ts";
import { isTerminal } from "../tty/terminal.ts";
import type { OutputFlow, ShowControl, ShowOutcome } from "../core/transport.ts";
import { OutputWriter } from "../io/output-writer.ts";

/** derun's own fd for each output channel. */
const FD_OF_CHANNEL: Record<DerunOutputChannel, number> = { pty: 1, stdout: 1, stderr: 2 };

/** The channels that derun writes to `fd`. */
export const channelsOfFd = (fd: number): DerunOutputChannel[] =>
  (Object.keys(FD_OF_CHANNEL) as DerunOutputChannel[]).filter((channel) => FD_OF_CHANNEL[channel] === fd);

/** Forwards each chunk of the child's output to derun's fd of its channel, in order. */
export interface Forwarder {
  /**
   * Never throws, and never alters the chunk. `written` runs once the bytes reached derun's fd (or
   * the fd failed), in order: the terminal first, then whatever `written` does (the recording).
   */
  write(channel: DerunOutputChannel, bytes: Uint8Array, written?: (bytes: Uint8Array) => void): void;
  /** Runs `then` once everything forwarded so far has reached its fd, after its `written` callbacks. */
  afterWritten(then: () => void): void;
  /** Blocks until everything forwarded so far has reached its fd; forwarding goes on after it. */
  drain(): void;
  /** {@link drain}, then stops the writer thread: before derun restores its terminal or exits. */
  flush(): void;
  /** How fast derun's terminal takes what is forwarded, for the transport (core/transport.ts). */
  readonly flow: OutputFlow;
  /** Whether a transport's reader thread may write a chunk of `channel` itself now (OutputShow.idle). */
  showIdle(channel: DerunOutputChannel): boolean;
  /** A chunk of `channel` the reader thread wrote itself: `written` runs in order, as for {@link write}. */
  shown(channel: DerunOutputChannel, bytes: Uint8Array, outcome: ShowOutcome, written?: (bytes: Uint8Array) => void): void;
  /** Registers a reader whose thread writes to the screen itself (OutputShow.attach). */
  attachShow(control: ShowControl): void;
  /** derun has its terminal again: reader threads may write again. */
  resumeShows(): void;
}

/**
 * When the reader of one of derun's streams goes away (EPIPE: `derun run -- yes | head`), that
 * stream is dropped and `onBrokenPipe(fd)` is called once for it, so the child can meet the same
 * broken pipe it would have met without derun. Any other write failure (EIO after a terminal
 * hang-up, which sends its own SIGHUP) drops the stream too. Capture of later output goes on
 * regardless.
 */
export function createForwarder(onBrokenPipe: (fd: number) => void, log: Logger): Forwarder {
  const toTerminal = isTerminal(1) || isTerminal(2);
  const writer = new OutputWriter(
    [1, 2],
    {
      failed: (fd, brokenPipe) => brokenPipe && onBrokenPipe(fd),
      threadUnavailable: () => log.log("warn", "output_writer_thread_unavailable", {}),
    },
    { threadless: [1, 2].every(neverBlocks) },
  );
  return {
    write: (channel, bytes, written) => writer.write(FD_OF_CHANNEL[channel], bytes, written),
    afterWritten: (then) => writer.afterWritten(then),
    drain: () => writer.drain(),
    showIdle: (channel) => writer.showIdle(FD_OF_CHANNEL[channel]),
    shown: (channel, bytes, outcome, written) => writer.shown(FD_OF_CHANNEL[channel], bytes, outcome, written),
    attachShow: (control) => writer.attachShow(control),
    resumeShows: () => writer.resumeShows(),
    flush: () => writer.close(),
    flow: {
      held: () => writer.held(),
      // A read ahead bounded for a slow terminal, where a Ctrl-C must not be followed by what derun
      // read before it; a pipe or a file takes it all anyway (and a pipeline's Ctrl-C ends its reader too).
      readAhead: () => (toTerminal ? writer.readAheadAllowed : Number.POSITIVE_INFINITY),
      whenFree: (progress) => writer.whenFree(progress),
    },
  };
}

/**
 * A write to `fd` completes at once, whoever reads: a regular file, or a character device that is
 * not a terminal (/dev/null). A pipe, a socket or a terminal can make a writer wait.
 */
function neverBlocks(fd: number): boolean {
  try {
    const stat = fstatSync(fd);
    return stat.isFile() || (stat.isCharacterDevice() && !isTerminal(fd));
  } catch {
    return false; // closed: the writer reports the failure when it writes
  }
}
