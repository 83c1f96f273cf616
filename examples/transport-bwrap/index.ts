/**
 * bwrap: a derun transport that runs the command inside a bubblewrap sandbox (see sandbox-args.ts
 * for the policy). Output travels over pipes, recorded as channels `stdout` and `stderr`; stdin is
 * inherited. Needs `bwrap` on PATH (Debian/Ubuntu: `apt install bubblewrap`) and Linux.
 *
 * Without bwrap it refuses to start rather than run the command unsandboxed: whoever asked for a
 * sandbox must not silently get none. derun then reports the reason and exits 1.
 *
 *   derun run --transport ./examples/transport-bwrap -- make test
 *   DERUN_BWRAP_SHARE_NET=1 derun run --transport derun-transport-bwrap -- npm ci
 */
import fs from "node:fs";
import { defineTransport, SpawnError, type ChildExit, type DerunOutputChannel, type RunningChild, type TransportOpenOptions } from "derun/plugin";
import { sandboxArgs } from "./sandbox-args.ts";

/** After the sandbox has exited, how long to keep reading before giving up on a leftover writer. */
const POST_EXIT_GRACE_MS = 200;

export default defineTransport({
  meta: { name: "bwrap", description: "Runs the command in a bubblewrap sandbox: read-only system, writable working directory, no network" },
  capabilities: { tty: false, resize: false, signals: true, input: "inherit" },
  supports: (probe) => probe.platform === "linux",
  open: async (command, options) => openSandboxed(command, options),
});

function openSandboxed(command: readonly string[], options: TransportOpenOptions): RunningChild {
  const bwrap = Bun.which("bwrap", { PATH: options.env.PATH ?? "" });
  if (!bwrap) throw new Error("bwrap not found on PATH (install bubblewrap); refusing to run the command unsandboxed");
  if (!fs.statSync(options.cwd, { throwIfNoEntry: false })?.isDirectory()) {
    throw new SpawnError("ENOENT", `working directory not found: ${options.cwd}`);
  }
  // bwrap would report a missing command as its own exit 1; find it first so derun exits 127.
  const name = command[0] ?? "";
  if (!Bun.which(name, { PATH: options.env.PATH ?? "", cwd: options.cwd })) throw new SpawnError("ENOENT", `command not found: ${name}`);

  const shareNet = options.env.DERUN_BWRAP_SHARE_NET === "1";
  const proc = Bun.spawn([bwrap, ...sandboxArgs({ cwd: options.cwd, shareNet }), ...command], {
    cwd: options.cwd,
    env: options.env,
    stdin: "inherit",
    stdout: "pipe",
    stderr: "pipe",
  });
  const stdout = proc.stdout.getReader();
  const stderr = proc.stderr.getReader();
  const streamsEnd = Promise.all([pump(stdout, "stdout", options), pump(stderr, "stderr", options)]);

  const exited = proc.exited.then(async (): Promise<ChildExit> => {
    const ended = await Promise.race([streamsEnd.then(() => true), Bun.sleep(POST_EXIT_GRACE_MS).then(() => false)]);
    if (!ended) await Promise.all([stdout.cancel(), stderr.cancel()]);
    const signal = proc.signalCode;
    return typeof signal === "string" ? { kind: "signaled", signal } : { kind: "exited", code: proc.exitCode ?? 128 + (signal ?? 0) };
  });

  return {
    pid: proc.pid,
    write: () => {},
    resize: () => {},
    // bwrap dies of the signal and --die-with-parent takes everything in the sandbox with it.
    kill: (signal) => proc.kill(signal),
    exited,
    [Symbol.asyncDispose]: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
      await exited;
    },
  };
}

/** Hands every chunk of one stream to derun as it arrives, unchanged; resolves at its end. */
async function pump(
  reader: { read(): Promise<{ done: boolean; value?: Uint8Array }> },
  channel: DerunOutputChannel, options: TransportOpenOptions): Promise<void> {
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      if (value) options.onOutput(channel, value);
    }
  } catch {
    // A read error ends this stream; the sandbox's exit still decides the result.
  }
}
