/**
 * pipe: the child's stdout and stderr are pipes, recorded as channels `stdout` and `stderr`; used
 * whenever derun is not between two terminals. Importing this module has no side effects.
 *
 * stdin is inherited, not forwarded: the child gets derun's own stdin file descriptor, so it sees
 * exactly what it would see without derun (a file stays seekable and keeps its type and size, a
 * closed stdin stays closed, EOF arrives when it would). Forwarding through a pipe would lose all of
 * that and add a copy.
 */
import { defineTransport, type RunningChild, type TransportOpenOptions } from "../../core/transport.ts";
import type { DerunOutputChannel } from "../../core/enums.ts";
import { exitOf, toSpawnError } from "../_bun-spawn.ts";
import { DrainWindow } from "../_grace.ts";

export default defineTransport({
  meta: { name: "pipe", description: "Plain pipes for stdout and stderr, stdin inherited" },
  capabilities: { tty: false, resize: false, signals: true, input: "inherit" },
  supports: () => true,
  open: async (command, options) => openPipe(command, options),
});

function openPipe(command: readonly string[], options: TransportOpenOptions): RunningChild {
  let proc: Bun.Subprocess<"inherit", "pipe", "pipe">;
  try {
    proc = Bun.spawn([...command], {
      cwd: options.cwd,
      env: options.env,
      stdin: "inherit",
      stdout: "pipe",
      stderr: "pipe",
    });
  } catch (error) {
    throw toSpawnError(command, options.cwd, error) ?? error;
  }
  const stdout = proc.stdout.getReader();
  const stderr = proc.stderr.getReader();
  const drain = new DrainWindow();
  const deliver = (channel: DerunOutputChannel, bytes: Uint8Array) => {
    drain.activity();
    options.onOutput(channel, bytes);
  };
  const streamsEnd = Promise.all([pump(stdout, "stdout", deliver), pump(stderr, "stderr", deliver)]);

  const exited = proc.exited.then(async () => {
    if (!(await drain.drain(streamsEnd))) {
      // A grandchild still holds a pipe: stop reading so it cannot keep derun alive.
      await Promise.all([stdout.cancel(), stderr.cancel()]);
    }
    return exitOf(proc);
  });

  return {
    pid: proc.pid,
    write: () => {},
    resize: () => {},
    kill: (signal) => proc.kill(signal),
    exited,
    [Symbol.asyncDispose]: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
      await exited;
    },
  };
}

/** Delivers every chunk of one stream to `onOutput` as it arrives; resolves at the stream's end. */
async function pump(
  reader: { read(): Promise<{ done: boolean; value?: Uint8Array }> },
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
    // A read error on a pipe (EIO) ends that stream; the child's exit still decides the result.
  }
}
