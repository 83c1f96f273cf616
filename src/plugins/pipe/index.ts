/**
 * pipe: the child's stdout and stderr are recorded as channels `stdout` and `stderr`; used whenever
 * derun is not between terminals on all three fds. Importing this module has no side effects.
 *
 * stdin is inherited, not forwarded: the child gets derun's own stdin, so a file stays seekable, a
 * closed stdin stays closed and EOF arrives when it would. stdout and stderr are each a real pipe
 * (io/fifo-pipe.ts: not Bun's socket, which breaks `echo x > /dev/stderr`), or, where derun's
 * own fd 1 or 2 is a terminal (Linux), a PTY of its own (pty/stream-pty.ts), so the child sees
 * a terminal exactly where it would without derun (`derun run -- make | tee log`). When derun's own
 * stdout and stderr are one stream (`2>&1`; TransportOpenOptions.mergeOutputs), the child gets one
 * stream for both, recorded as `stdout`, so its writes to the two keep their order.
 *
 * When a reader of derun's own output goes away, closeOutput closes derun's end of that stream, so
 * the child meets the broken pipe itself (EPIPE or SIGPIPE, whichever it chose), as without derun.
 */
import {
  childExitOf,
  defineTransport,
  DrainWindow,
  forwardRest,
  isTerminal,
  openFifoPipe,
  openStreamPty,
  openStreamReader,
  pumpStream,
  readWindowSize,
  spawnIgnoring,
  spawnStdio,
  toSpawnError,
  type ChildExit,
  type DerunOutputChannel,
  type RunningChild,
  type StreamReaderOptions,
  type TransportOpenOptions,
  type WindowSize,
} from "../../plugin-api/index.ts";

export default defineTransport({
  meta: { name: "pipe", description: "Pipes for stdout and stderr (a PTY each where derun has a terminal), stdin inherited" },
  // resize: only the streams that are terminals (a stream PTY) are resized; pipes have no size.
  capabilities: { tty: false, resize: true, signals: true, input: "inherit" },
  supports: () => true,
  open: async (command, options) => openPipe(command, options),
});

/** derun's own fd for each output channel of the child. */
const FD_OF: Record<"stdout" | "stderr", number> = { stdout: 1, stderr: 2 };
const CHANNELS = ["stdout", "stderr"] as const;
type Channel = (typeof CHANNELS)[number];

/**
 * Both ends of one output stream when derun made them itself (a stream PTY or a pipe): the child
 * gets `childEnd`, derun reads the non-blocking `ourEnd`.
 */
interface OwnEnds {
  readonly childEnd: number;
  readonly ourEnd: number;
  /** Close derun's copy of the child's end, right after the spawn. */
  closeChildEnd(): void;
  /** Resize when the stream is a terminal; `true` when the size changed. */
  resize(size: WindowSize): boolean;
  /** Close every end still open. Idempotent. */
  close(): void;
}

type PipeChild = Bun.Subprocess<"inherit", "pipe" | number, "pipe" | number>;
/**
 * derun's own ends of each stream; undefined where Bun made the stream. `merged`: the child writes
 * stdout and stderr into the one stream of `stdout` (`stderr` is then undefined and never read).
 */
type StreamEnds = Record<Channel, OwnEnds | undefined> & { readonly merged: boolean };

/** The streams as derun reads them, and the way to read what they hold now. */
type Outputs = Record<Channel, Output> & {
  /** The child exited: a short command is over before the reader thread would start; read what it left, here. */
  readNow(): void;
  /** Bytes written to derun's own ends are not delivered yet (StreamReader.unread). */
  unread(): boolean;
};

/** One output stream as derun reads it. */
interface Output {
  /** Resolves once the stream has ended: EOF, a read error, or stopped. */
  readonly ended: Promise<void>;
  /** Stop reading and close derun's end. Idempotent; resolves once the end is closed. */
  stop(): Promise<void>;
  /**
   * As stop, but what is still written into the stream goes on to derun's fd `to` (core/io/forward-rest.ts)
   * instead of breaking the writer's pipe; a stream that has ended is only closed.
   */
  handOver(to: number): Promise<void>;
}

/**
 * Runs `command` with its output streams on derun's own ends where it can make them. `drain` bounds
 * the wait for those streams after the exit (tests give one on a clock of their own). `handOver`:
 * what a grandchild still writes after the drain goes on to this process's fd 1 or 2 (derun's own
 * output; a test that runs the transport in its own process passes false, and the stream is closed).
 */
export function openPipe(
  command: readonly string[],
  options: TransportOpenOptions,
  drain = new DrainWindow(),
  handOver = true,
): RunningChild {
  const { proc, ends } = spawnOnOwnEnds(command, options);
  const deliver = (channel: DerunOutputChannel, bytes: Uint8Array) => {
    drain.activity();
    options.onOutput(channel, bytes);
  };
  // Read no faster than derun's terminal takes the output: a slow one holds the child in the kernel.
  const flow = options.outputFlow ? { flow: options.outputFlow, flowProgress: () => drain.activity() } : {};
  const outputs = outputsOf(ends, proc, deliver, flow);
  // Not quiet while the streams hold bytes or the reader has them on their way (a reader thread run
  // late, derun's terminal stalled): stopping it then would drop the child's last writes.
  const probes = { busy: outputs.unread, held: () => options.outputFlow?.held() ?? false };
  const drainUntil = (streamsEnd: Promise<unknown>) => drain.drain(streamsEnd, probes);
  const exited = proc.exited.then(() => drainAfterExit(proc, ends, outputs, drainUntil, handOver));
  return {
    pid: proc.pid,
    ...(ends.merged ? { outputsMerged: true } : {}),
    resize: (size) => resizeTerminalStreams(proc, ends, size),
    kill: (signal) => proc.kill(signal),
    /**
     * Stops reading `channel` and closes derun's end of it, so the child's next write there fails
     * as it would without derun: EPIPE (or SIGPIPE) on a pipe. On a stream PTY the child gets EIO
     * instead, as when a terminal goes away. Other channels keep being read and recorded.
     */
    closeOutput: (channel) => {
      if (channel === "stdout" || channel === "stderr") void outputs[channel].stop();
    },
    exited,
    [Symbol.asyncDispose]: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
      await exited;
    },
  };
}

/** Spawns the child on derun's own ends (Bun's pipes where there are none); only its ends stay open here. */
function spawnOnOwnEnds(command: readonly string[], options: TransportOpenOptions): { proc: PipeChild; ends: StreamEnds } {
  const ends = ownEnds(options);
  let proc: PipeChild;
  try {
    const stdout = ends.stdout?.childEnd ?? "pipe";
    // Merged: the child's fd 2 is its fd 1's stream, as `2>&1` made derun's.
    const stderr = (ends.merged ? ends.stdout?.childEnd : ends.stderr?.childEnd) ?? "pipe";
    proc = Bun.spawn(spawnIgnoring(command, options.ignoredSignals, options.cwd, options.env), {
      cwd: options.cwd,
      env: options.env,
      stdio: spawnStdio(["inherit", stdout, stderr] as const, options.inheritedFds),
    }) as PipeChild;
  } catch (error) {
    ends.stdout?.close();
    ends.stderr?.close();
    throw toSpawnError(command, options.cwd, error) ?? error;
  }
  // The child has its own copies now; ours would keep the stream from ever ending.
  ends.stdout?.closeChildEnd();
  ends.stderr?.closeChildEnd();
  return { proc, ends };
}

/** After the exit: read on until the streams end or the drain window gives up, then close our ends; the child's exit. */
async function drainAfterExit(
  proc: PipeChild,
  ends: StreamEnds,
  outputs: Outputs,
  drainUntil: (streamsEnd: Promise<unknown>) => Promise<boolean>,
  handOver: boolean,
): Promise<ChildExit> {
  outputs.readNow();
  // A stream stopped early by closeOutput ends at once, so it never holds up this drain.
  const streamsEnd = Promise.all(CHANNELS.map((channel) => outputs[channel].ended));
  // Not finished in time: a grandchild still holds a stream; stopping it cannot keep derun alive.
  const finished = await drainUntil(streamsEnd);
  // A process the command left running still holds a stream: what it writes goes on where it would have.
  if (!finished) {
    const stop = (channel: Channel) => (handOver ? outputs[channel].handOver(ends.merged ? 1 : FD_OF[channel]) : outputs[channel].stop());
    await Promise.all(CHANNELS.map(stop));
  }
  // Our ends are closed whichever way the streams ended.
  ends.stdout?.close();
  ends.stderr?.close();
  return childExitOf(proc);
}

/**
 * Resizes only the streams that are terminals, each to the size of derun's own terminal on that
 * fd (`size` when that cannot be read); a no-op when neither is one. Then derun sends the child a
 * SIGWINCH: the real terminal signalled it already (it shares derun's process group), but often
 * before derun got here, and a child that read the size at once saw the old one.
 */
function resizeTerminalStreams(proc: PipeChild, ends: StreamEnds, size: WindowSize): void {
  let changed = false;
  for (const channel of CHANNELS) {
    if (ends[channel]?.resize(size)) changed = true;
  }
  if (changed && proc.exitCode === null && proc.signalCode === null) proc.kill("SIGWINCH");
}

/**
 * The ends for both streams: one for both when derun's stdout and stderr are one stream (and derun
 * could make it: Bun's own pipes cannot be shared), else one each.
 */
function ownEnds(options: TransportOpenOptions): StreamEnds {
  const stdout = endsFor("stdout", options.size);
  if (options.mergeOutputs === true && stdout) return { stdout, stderr: undefined, merged: true };
  return { stdout, stderr: endsFor("stderr", options.size), merged: false };
}

/**
 * derun's own ends for `channel`: on Linux a PTY when derun's own fd for it is a terminal, sized
 * like that terminal; else a real pipe (io/fifo-pipe.ts). On Windows, or when neither can be
 * made, undefined and Bun makes the stream (a socketpair on POSIX): it loses the terminal or the
 * pipe type but never a byte, and must not stop the command from running.
 */
function endsFor(channel: "stdout" | "stderr", size: WindowSize | undefined): OwnEnds | undefined {
  const fd = FD_OF[channel];
  if (process.platform === "win32") return undefined;
  // Linux only: sizing a PTY takes ioctl, which is variadic, and bun:ffi cannot call a variadic
  // function correctly on Apple arm64 (its variadic arguments travel on the stack).
  if (process.platform === "linux" && isTerminal(fd)) {
    const pty = tryOpen(() => openStreamPty(readWindowSize(fd) ?? size));
    if (pty) {
      // Sized like derun's own terminal on that fd; `fallback` only when that cannot be read.
      const resize = (fallback: WindowSize) => pty.resize(readWindowSize(fd) ?? fallback);
      return { childEnd: pty.slave, ourEnd: pty.master, closeChildEnd: pty.closeSlave, resize, close: pty.close };
    }
  }
  const pipe = tryOpen(openFifoPipe);
  return (
    pipe && { childEnd: pipe.writeEnd, ourEnd: pipe.readEnd, closeChildEnd: pipe.closeWriteEnd, resize: () => false, close: pipe.close }
  );
}

/** `open()`, or undefined when it throws: a missing PTY or pipe costs fidelity, never the run. */
function tryOpen<T>(open: () => T): T | undefined {
  try {
    return open();
  } catch {
    return undefined;
  }
}

/**
 * How each stream is read: derun's own ends all by one reader thread (io/stream-reader.ts, which
 * keeps their order across streams and allocates nothing per chunk, and falls back to Bun's
 * reader by itself); a stream Bun made, by Bun's reader.
 */
function outputsOf(
  ends: StreamEnds,
  proc: PipeChild,
  deliver: (channel: DerunOutputChannel, bytes: Uint8Array) => void,
  readerOptions: StreamReaderOptions,
): Outputs {
  const own = CHANNELS.filter((channel) => ends[channel] !== undefined);
  // Merged, nothing writes to a stderr of its own: it is over before it began.
  const none: Output = { ended: Promise.resolve(), stop: async () => {}, handOver: async () => {} };
  const reader =
    own.length > 0
      ? openStreamReader(
          own.map((channel) => ({ fd: ends[channel]!.ourEnd, deliver: (bytes: Uint8Array) => deliver(channel, bytes) })),
          readerOptions,
        )
      : undefined;
  const outputOf = (channel: Channel): Output => {
    if (channel === "stderr" && ends.merged) return none;
    const channelEnds = ends[channel];
    if (channelEnds && reader) {
      const index = own.indexOf(channel);
      const close = () => channelEnds.close();
      let ended = false;
      const streamEnded = reader.ended(index).then(() => void (ended = true));
      let stopped: Promise<void> | undefined;
      // Whether the stream is still open is read before the stop, which ends it as the reader sees it.
      const handOver = (to: number, open: boolean) => () => {
        if (open) forwardRest(channelEnds.ourEnd, to);
        close();
      };
      return {
        ended: streamEnded,
        stop: () => (stopped ??= reader.stop(index).then(close, close)),
        handOver: (to) => (stopped ??= reader.stop(index).then(handOver(to, !ended), close)),
      };
    }
    const bunPipe = proc[channel];
    if (!(bunPipe instanceof ReadableStream)) throw new Error("pipe: Bun did not give a readable stream for a piped output");
    // A stream Bun made is Bun's to close: stopping only cancels the reading.
    const bunReader = bunPipe.getReader();
    let stopped: Promise<void> | undefined;
    const stop = () => (stopped ??= bunReader.cancel().catch(() => {}));
    return { ended: pumpStream(bunReader, (bytes) => deliver(channel, bytes)), stop, handOver: stop };
  };
  return {
    stdout: outputOf("stdout"),
    stderr: outputOf("stderr"),
    readNow: () => reader?.readNow(),
    unread: () => reader?.unread ?? false,
  };
}
