/**
 * pipe: the child's stdout and stderr are recorded as channels `stdout` and `stderr`; used whenever
 * derun is not between two terminals. Importing this module has no side effects.
 *
 * stdin is inherited, not forwarded: the child gets derun's own stdin file descriptor, so it sees
 * exactly what it would see without derun (a file stays seekable and keeps its type and size, a
 * closed stdin stays closed, EOF arrives when it would). Forwarding through a pipe would lose all of
 * that and add a copy.
 *
 * stdout and stderr are each a pipe, except where derun's own fd 1 or 2 is a terminal (POSIX): that
 * stream gets a PTY of its own (see ./_stream-pty.ts), so the child sees a terminal exactly where it
 * would without derun (`derun run -- make | tee log`, `echo x | derun run -- grep --color=auto x`).
 */
import tty from "node:tty";
import { defineTransport, type RunningChild, type TransportOpenOptions, type WindowSize } from "../../core/transport.ts";
import type { DerunOutputChannel } from "../../core/enums.ts";
import { exitOf, toSpawnError } from "../_bun-spawn.ts";
import { DrainWindow } from "../_grace.ts";
import { openStreamPty, terminalSize, type StreamPty } from "./_stream-pty.ts";

export default defineTransport({
  meta: { name: "pipe", description: "Pipes for stdout and stderr (a PTY each where derun has a terminal), stdin inherited" },
  // resize: only the streams that are terminals (a stream PTY) are resized; pipes have no size.
  capabilities: { tty: false, resize: true, signals: true, input: "inherit" },
  supports: () => true,
  open: async (command, options) => openPipe(command, options),
});

/** The part of a stream reader used here (Bun's pipe and fd readers have different nominal types). */
interface Reader {
  read(): Promise<{ done: boolean; value?: Uint8Array }>;
  cancel(): Promise<void>;
}

/** derun's own fd for each output channel of the child. */
const FD_OF: Record<"stdout" | "stderr", number> = { stdout: 1, stderr: 2 };

function openPipe(command: readonly string[], options: TransportOpenOptions): RunningChild {
  const ptys = { stdout: streamPtyFor("stdout", options.size), stderr: streamPtyFor("stderr", options.size) };
  const closePtys = () => {
    ptys.stdout?.close();
    ptys.stderr?.close();
  };
  let proc: Bun.Subprocess<"inherit", "pipe" | number, "pipe" | number>;
  try {
    proc = Bun.spawn([...command], {
      cwd: options.cwd,
      env: options.env,
      stdin: "inherit",
      stdout: ptys.stdout?.slave ?? "pipe",
      stderr: ptys.stderr?.slave ?? "pipe",
    });
  } catch (error) {
    closePtys();
    throw toSpawnError(command, options.cwd, error) ?? error;
  }
  // The child has its own copies now; ours would keep the stream from ever ending.
  ptys.stdout?.closeSlave();
  ptys.stderr?.closeSlave();
  const stdout = readerOf(ptys.stdout, proc.stdout);
  const stderr = readerOf(ptys.stderr, proc.stderr);
  const drain = new DrainWindow();
  const deliver = (channel: DerunOutputChannel, bytes: Uint8Array) => {
    drain.activity();
    options.onOutput(channel, bytes);
  };
  const streamsEnd = Promise.all([pump(stdout, "stdout", deliver), pump(stderr, "stderr", deliver)]);

  const exited = proc.exited.then(async () => {
    if (!(await drain.drain(streamsEnd))) {
      // A grandchild still holds a stream: stop reading so it cannot keep derun alive.
      await Promise.all([stdout.cancel(), stderr.cancel()]);
    }
    closePtys();
    return exitOf(proc);
  });

  return {
    pid: proc.pid,
    write: () => {},
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
      for (const channel of ["stdout", "stderr"] as const) {
        if (ptys[channel]?.resize(terminalSize(FD_OF[channel]) ?? size)) changed = true;
      }
      if (changed && proc.exitCode === null && proc.signalCode === null) proc.kill("SIGWINCH");
    },
    kill: (signal) => proc.kill(signal),
    exited,
    [Symbol.asyncDispose]: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
      await exited;
    },
  };
}

/**
 * A PTY for `channel` when derun's own fd for it is a terminal (POSIX only), sized like that
 * terminal; otherwise undefined and the stream is a plain pipe, as it is when no PTY can be
 * allocated: a pipe loses the terminal but never a byte, and must not stop the command from running.
 */
function streamPtyFor(channel: "stdout" | "stderr", size: WindowSize | undefined): StreamPty | undefined {
  const fd = FD_OF[channel];
  if (process.platform === "win32" || !tty.isatty(fd)) return undefined;
  try {
    return openStreamPty(terminalSize(fd) ?? size);
  } catch {
    return undefined;
  }
}

/** The reader of one stream: the PTY master when there is one, else the child's pipe. */
function readerOf(pty: StreamPty | undefined, pipe: ReadableStream<Uint8Array> | number | undefined): Reader {
  if (pty) return Bun.file(pty.master).stream().getReader();
  if (pipe instanceof ReadableStream) return pipe.getReader();
  throw new Error("pipe: Bun did not give a readable stream for a piped output");
}

/** Delivers every chunk of one stream to `onOutput` as it arrives; resolves at the stream's end. */
async function pump(
  reader: Reader,
  channel: DerunOutputChannel,
  deliver: (channel: DerunOutputChannel, bytes: Uint8Array) => void,
): Promise<void> {
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      if (value) deliver(channel, value);
    }
  } catch {
    // A read error ends that stream: EIO is how a PTY master reports that the child's last copy of
    // the slave is closed, a normal end; the child's exit still decides the result.
  }
}
