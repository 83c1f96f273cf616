/**
 * pipe: the child's stdout and stderr are recorded as channels `stdout` and `stderr`; used whenever
 * derun is not between two terminals. Importing this module has no side effects.
 *
 * stdin is inherited, not forwarded: the child gets derun's own stdin file descriptor, so it sees
 * exactly what it would see without derun (a file stays seekable and keeps its type and size, a
 * closed stdin stays closed, EOF arrives when it would). Forwarding through a pipe would lose all of
 * that and add a copy.
 *
 * stdout and stderr are each a real pipe (core/io/fifo-pipe.ts: not the socket Bun would give, which
 * breaks `echo x > /dev/stderr`), except where derun's own fd 1 or 2 is a terminal (POSIX): that
 * stream gets a PTY of its own (see core/io/stream-pty.ts), so the child sees a terminal exactly where it
 * would without derun (`derun run -- make | tee log`, `echo x | derun run -- grep --color=auto x`).
 *
 * When a reader of derun's own output goes away, closeOutput closes derun's end of that stream, so
 * the child meets the broken pipe itself (EPIPE or SIGPIPE, whichever it chose), as without derun.
 */
import {
  childExitOf,
  defineTransport,
  DrainWindow,
  isTerminal,
  openFifoPipe,
  openStreamPty,
  openStreamReader,
  pumpStream,
  readWindowSize,
  toSpawnError,
  type DerunOutputChannel,
  type RunningChild,
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

/**
 * Both ends of one output stream when derun made them itself (a stream PTY or a FIFO pipe): the
 * child gets `childEnd`, derun reads the non-blocking `ourEnd`.
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

/** One output stream as derun reads it. */
interface Output {
  /** Resolves once the stream has ended: EOF, a read error, or stopped. */
  readonly ended: Promise<void>;
  /** Stop reading and close derun's end. Idempotent; resolves once the end is closed. */
  stop(): Promise<void>;
}

function openPipe(command: readonly string[], options: TransportOpenOptions): RunningChild {
  const ends = { stdout: endsFor("stdout", options.size), stderr: endsFor("stderr", options.size) };
  let proc: Bun.Subprocess<"inherit", "pipe" | number, "pipe" | number>;
  try {
    proc = Bun.spawn([...command], {
      cwd: options.cwd,
      env: options.env,
      stdin: "inherit",
      stdout: ends.stdout?.childEnd ?? "pipe",
      stderr: ends.stderr?.childEnd ?? "pipe",
    });
  } catch (error) {
    ends.stdout?.close();
    ends.stderr?.close();
    throw toSpawnError(command, options.cwd, error) ?? error;
  }
  // The child has its own copies now; ours would keep the stream from ever ending.
  ends.stdout?.closeChildEnd();
  ends.stderr?.closeChildEnd();
  const drain = new DrainWindow();
  const deliver = (channel: DerunOutputChannel, bytes: Uint8Array) => {
    drain.activity();
    options.onOutput(channel, bytes);
  };
  const outputs = outputsOf(ends, proc, deliver);
  // A stream stopped early by closeOutput ends at once, so it never holds up this drain.
  const streamsEnd = Promise.all(CHANNELS.map((channel) => outputs[channel].ended));

  const exited = proc.exited.then(async () => {
    // A short command is over before the reader thread would start: read what it left, here.
    outputs.readNow();
    // Not finished in time: a grandchild still holds a stream; stopping it cannot keep derun alive.
    const finished = await drain.drain(streamsEnd);
    if (!finished) await Promise.all(CHANNELS.map((channel) => outputs[channel].stop()));
    // Our ends are closed whichever way the streams ended.
    ends.stdout?.close();
    ends.stderr?.close();
    return childExitOf(proc);
  });

  return {
    pid: proc.pid,
    /**
     * Resizes only the streams that are terminals, each to the size of derun's own terminal on that
     * fd (`size` when that cannot be read); a no-op when neither is one.
     *
     * Then the child gets a SIGWINCH from derun: it shares derun's process group, so the real
     * terminal signalled it already, but possibly before derun got here, and a child that read the
     * size right away saw the old one (measured: 3 runs in 10). The second signal makes it read again.
     */
    resize: (size) => {
      let changed = false;
      for (const channel of CHANNELS) {
        if (ends[channel]?.resize(size)) changed = true;
      }
      if (changed && proc.exitCode === null && proc.signalCode === null) proc.kill("SIGWINCH");
    },
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

/**
 * derun's own ends for `channel`: on Linux a PTY when derun's own fd for it is a terminal, sized
 * like that terminal; else a FIFO pipe (see core/io/fifo-pipe.ts). On Windows, or when neither can be made,
 * undefined and Bun makes the stream ("pipe": a socketpair on POSIX): it loses the terminal or the
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
  return pipe && { childEnd: pipe.writeEnd, ourEnd: pipe.readEnd, closeChildEnd: pipe.closeWriteEnd, resize: () => false, close: pipe.close };
}

/** `open()`, or undefined when it throws: a missing PTY or FIFO costs fidelity, never the run. */
function tryOpen<T>(open: () => T): T | undefined {
  try {
    return open();
  } catch {
    return undefined;
  }
}

/**
 * How each stream is read: derun's own ends all by one reader thread (core/io/stream-reader.ts, which
 * keeps their order across streams and allocates nothing per chunk, and falls back to Bun's
 * reader by itself); a stream Bun made, by Bun's reader.
 */
function outputsOf(
  ends: Record<(typeof CHANNELS)[number], OwnEnds | undefined>,
  proc: Bun.Subprocess<"inherit", "pipe" | number, "pipe" | number>,
  deliver: (channel: DerunOutputChannel, bytes: Uint8Array) => void,
): Record<(typeof CHANNELS)[number], Output> & { readNow(): void } {
  const own = CHANNELS.filter((channel) => ends[channel] !== undefined);
  const reader = own.length > 0 ? openStreamReader(own.map((channel) => ({ fd: ends[channel]!.ourEnd, deliver: (bytes: Uint8Array) => deliver(channel, bytes) }))) : undefined;
  const outputOf = (channel: (typeof CHANNELS)[number]): Output => {
    const channelEnds = ends[channel];
    if (channelEnds && reader) {
      const index = own.indexOf(channel);
      const close = () => channelEnds.close();
      let stopped: Promise<void> | undefined;
      return { ended: reader.ended(index), stop: () => (stopped ??= reader.stop(index).then(close, close)) };
    }
    const bunPipe = proc[channel];
    if (!(bunPipe instanceof ReadableStream)) throw new Error("pipe: Bun did not give a readable stream for a piped output");
    // A stream Bun made is Bun's to close: stopping only cancels the reading.
    const bunReader = bunPipe.getReader();
    let stopped: Promise<void> | undefined;
    return { ended: pumpStream(bunReader, (bytes) => deliver(channel, bytes)), stop: () => (stopped ??= bunReader.cancel().catch(() => {})) };
  };
  return { stdout: outputOf("stdout"), stderr: outputOf("stderr"), readNow: () => reader?.readNow() };
}
