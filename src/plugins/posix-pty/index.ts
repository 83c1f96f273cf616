/**
 * posix-pty: the child runs on a pseudo-terminal allocated by Bun itself (inline
 * `Bun.spawn(argv, { terminal })`). Chosen over bun-pty because it hands out the raw bytes, where
 * bun-pty decodes them as UTF-8 and loses every invalid byte. Importing this module has no side
 * effects.
 */
import { childExitOf, defineTransport, DrainWindow, toSpawnError, type RunningChild, type TransportOpenOptions } from "../../plugin-api/index.ts";

/** Used when the caller has no window size (derun's stdout is not a terminal). */
const DEFAULT_SIZE = { cols: 80, rows: 24 } as const;

export default defineTransport({
  meta: { name: "posix-pty", description: "Bun's built-in pseudo-terminal (Linux, macOS)" },
  capabilities: { tty: true, resize: true, signals: true, input: "forward" },
  supports: (probe) => probe.platform !== "win32",
  open: async (command, options) => openPty(command, options),
});

function openPty(command: readonly string[], options: TransportOpenOptions): RunningChild {
  const { cols, rows } = options.size ?? DEFAULT_SIZE;
  // The terminal's `exit` callback is the end of the stream: EOF, or EIO once the last slave fd is
  // closed (the kernel hangs up the PTY when the session leader exits). Both are a normal end.
  const { promise: streamEnd, resolve: endStream } = Promise.withResolvers<void>();
  const drain = new DrainWindow();
  let proc: Bun.Subprocess;
  try {
    proc = Bun.spawn([...command], {
      cwd: options.cwd,
      env: options.env,
      terminal: {
        cols,
        rows,
        data: (_terminal, bytes) => {
          drain.activity();
          options.onOutput("pty", bytes);
        },
        exit: () => endStream(),
      },
    });
  } catch (error) {
    throw toSpawnError(command, options.cwd, error) ?? error;
  }
  const terminal = proc.terminal;
  if (!terminal) throw new Error("posix-pty: Bun did not attach a terminal to the child");

  const exited = proc.exited.then(async () => {
    await drain.drain(streamEnd);
    terminal.close();
    return childExitOf(proc);
  });

  return {
    pid: proc.pid,
    // Terminal.write accepts every byte and buffers what the PTY cannot take yet (flushing it on
    // writability), so a large paste is never truncated; the return value is not a short count.
    write: (bytes) => {
      if (!terminal.closed) terminal.write(bytes);
    },
    resize: (size) => {
      if (!terminal.closed) terminal.resize(size.cols, size.rows);
    },
    kill: (signal) => proc.kill(signal),
    exited,
    [Symbol.asyncDispose]: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
      await exited;
    },
  };
}
