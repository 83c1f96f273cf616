/**
 * bwrap: a derun transport that runs the command inside a bubblewrap sandbox (see sandbox-args.ts
 * for the policy). Output travels over real pipes, recorded as channels `stdout` and `stderr`;
 * stdin is inherited. Needs `bwrap` on PATH (Debian/Ubuntu: `apt install bubblewrap`) and Linux.
 *
 * Without bwrap it refuses to start rather than run the command unsandboxed: whoever asked for a
 * sandbox must not silently get none. derun then reports the reason and exits 1.
 *
 *   derun run --transport ./examples/transport-bwrap -- make test
 *   DERUN_BWRAP_SHARE_NET=1 derun run --transport derun-transport-bwrap -- npm ci
 */
import fs from "node:fs";
import path from "node:path";
import {
  childExitOf,
  defineTransport,
  DrainWindow,
  openFifoPipe,
  openStreamReader,
  SpawnError,
  type FifoPipe,
  type RunningChild,
  type TransportOpenOptions,
} from "derun/plugin";
import { sandboxArgs } from "./sandbox-args.ts";

export default defineTransport({
  meta: {
    name: "bwrap",
    description: "Runs the command in a bubblewrap sandbox: read-only system, writable working directory, no network",
  },
  capabilities: { tty: false, resize: false, signals: true, input: "inherit" },
  supports: (probe) => probe.platform === "linux",
  open: async (command, options) => openSandboxed(command, options),
});

const CHANNELS = ["stdout", "stderr"] as const;

function openSandboxed(command: readonly string[], options: TransportOpenOptions): RunningChild {
  const bwrap = Bun.which("bwrap", { PATH: options.env.PATH ?? "" });
  if (!bwrap) throw new Error("bwrap not found on PATH (install bubblewrap); refusing to run the command unsandboxed");
  checkStartable(command, options);

  // Real pipes, as the command would have without derun (Bun's own would be sockets).
  const pipes: Record<(typeof CHANNELS)[number], FifoPipe> = { stdout: openFifoPipe(), stderr: openFifoPipe() };
  const closeAll = () => CHANNELS.forEach((channel) => pipes[channel].close());
  const shareNet = options.env.DERUN_BWRAP_SHARE_NET === "1";
  let proc: Bun.Subprocess;
  try {
    proc = Bun.spawn([bwrap, ...sandboxArgs({ cwd: options.cwd, shareNet }), ...command], {
      cwd: options.cwd,
      env: options.env,
      stdin: "inherit",
      stdout: pipes.stdout.writeEnd,
      stderr: pipes.stderr.writeEnd,
    });
  } catch (error) {
    closeAll();
    throw error;
  }
  CHANNELS.forEach((channel) => pipes[channel].closeWriteEnd());

  const drain = new DrainWindow();
  const reader = openStreamReader(
    CHANNELS.map((channel) => ({
      fd: pipes[channel].readEnd,
      deliver: (bytes: Uint8Array) => {
        drain.activity();
        options.onOutput(channel, bytes);
      },
    })),
  );
  const streamsEnd = Promise.all(CHANNELS.map((_, index) => reader.ended(index)));
  const exited = proc.exited.then(async () => {
    // Bounded: a background process still holding the pipes must not keep derun waiting.
    if (!(await drain.drain(streamsEnd))) await Promise.all(CHANNELS.map((_, index) => reader.stop(index)));
    closeAll();
    return childExitOf(proc);
  });

  return {
    pid: proc.pid,
    // bwrap dies of the signal and --die-with-parent takes everything in the sandbox with it.
    kill: (signal) => proc.kill(signal),
    exited,
    [Symbol.asyncDispose]: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
      await exited;
    },
  };
}

/**
 * bwrap would report a command it cannot start as its own exit 1: find out first, so derun exits
 * 127 or 126 as a shell would.
 */
function checkStartable(command: readonly string[], { cwd, env }: TransportOpenOptions): void {
  if (!fs.statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) throw new SpawnError("ENOENT", `working directory not found: ${cwd}`);
  const name = command[0] ?? "";
  if (name.includes("/")) {
    const stat = fs.statSync(path.resolve(cwd, name), { throwIfNoEntry: false });
    if (!stat) throw new SpawnError("ENOENT", `command not found: ${name}`);
    if (!stat.isFile() || (stat.mode & 0o111) === 0) throw new SpawnError("EACCES", `command not executable: ${name}`);
    return;
  }
  if (!Bun.which(name, { PATH: env.PATH ?? "", cwd })) throw new SpawnError("ENOENT", `command not found: ${name}`);
}
