/**
 * A command run as the job of derun's session leader, once it has ended: what derun still asks of
 * it (a forwarded signal during the post-exit drain, a `fg` from the foreground poll) must reach
 * nobody else, neither a process that took its pid nor a file that took its control pipe's number.
 * Real processes on a real PTY; the pid is handed on through Linux's ns_last_pid (root only).
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { constants } from "node:os";
import { LeaderExecError, startUnderLeader } from "../../src/pty/leader.ts";
import { openStreamPty } from "../../src/pty/stream-pty.ts";
import { openFifoPipe } from "../../src/io/fifo-pipe.ts";
import { bytesUnread } from "../helpers/threads.ts";

const linux = process.platform === "linux";

/** A command run under a new leader on a fresh PTY, already ended. */
async function endedJob() {
  const pty = openStreamPty({ cols: 80, rows: 24 });
  try {
    const job = await startUnderLeader({
      slave: pty.slave,
      foreground: true,
      command: ["true"],
      cwd: "/",
      env: { PATH: process.env.PATH },
    });
    expect(await job.status).toBe(0);
    return job;
  } finally {
    pty.close();
  }
}

/** Whether this process may set the next pid (root, Linux). */
function canSetNextPid(): boolean {
  try {
    writeFileSync("/proc/sys/kernel/ns_last_pid", readFileSync("/proc/sys/kernel/ns_last_pid", "utf8"));
    return true;
  } catch {
    return false;
  }
}

/**
 * A process that blocks SIGTERM (so one sent to it stays pending, visible), started with pid `pid`; undefined if another process took it
 * first.
 */
async function processWithPid(pid: number): Promise<Bun.Subprocess<"pipe", "pipe", "inherit"> | undefined> {
  for (let attempt = 0; attempt < 50; attempt++) {
    writeFileSync("/proc/sys/kernel/ns_last_pid", String(pid - 1));
    const proc = Bun.spawn(
      [
        "python3",
        "-c",
        "import signal,sys; signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGTERM]); print('ready', flush=True); sys.stdin.read()",
      ],
      {
        stdin: "pipe",
        stdout: "pipe",
      },
    );
    if (proc.pid === pid) {
      const reader = proc.stdout.getReader();
      await reader.read(); // "ready": the mask is in place
      reader.releaseLock();
      return proc;
    }
    proc.kill("SIGKILL");
    await proc.exited;
  }
  return undefined;
}

/** Signals pending for the whole of process `pid` (/proc ShdPnd), as a mask. */
const pending = (pid: number) => BigInt(`0x${/^ShdPnd:\s*(\w+)$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]}`);

describe.skipIf(!linux)("a job of the leader after its exit", () => {
  test.skipIf(!canSetNextPid())("a signal forwarded after the exit never reaches a process that took the pid", async () => {
    const job = await endedJob();
    const victim = await processWithPid(job.pid);
    if (victim === undefined) throw new Error(`pid ${job.pid} was always taken first`);
    try {
      job.signal("SIGTERM");
      // kill() queues the signal before it returns; the leader would have done it at its next poll.
      // The leader is gone (reaped), so nothing is left that could still send it.
      expect(pending(victim.pid) & (1n << BigInt(constants.signals.SIGTERM - 1))).toBe(0n);
    } finally {
      victim.kill("SIGKILL");
      await victim.exited;
    }
  });

  test("a fg or bg after the exit writes nothing to a file that took the control pipe's fd number", async () => {
    const job = await endedJob();
    // The numbers the leader's pipes had are the lowest free ones now: new pipes take them.
    const pipes = Array.from({ length: 4 }, () => openFifoPipe());
    try {
      job.continueIn(true);
      job.continueIn(false);
      for (const pipe of pipes) expect(bytesUnread(pipe.readEnd)).toBe(0);
    } finally {
      for (const pipe of pipes) pipe.close();
    }
  });
});

/** The errno a start under a new leader fails with, or "started" with the command's raw status. */
async function startOutcome(command: string[], cwd = "/"): Promise<number | string> {
  const pty = openStreamPty({ cols: 80, rows: 24 });
  try {
    const job = await startUnderLeader({ slave: pty.slave, foreground: true, command, cwd, env: { PATH: process.env.PATH } });
    return `started ${await job.status}`;
  } catch (error) {
    if (error instanceof LeaderExecError) return error.errno;
    throw error;
  } finally {
    pty.close();
  }
}

// The leader starts the command with vfork: what the command's copy does before exec (its working
// directory, exec itself) reports its failure through the error pipe as with a fork.
describe.skipIf(!linux)("a command the leader cannot start", () => {
  test("exec's and chdir's errno come back, and a command that runs gives its status", async () => {
    const dir = mkdtempSync(join(tmpdir(), "derun-leader-exec-"));
    try {
      const plain = join(dir, "not-executable");
      writeFileSync(plain, "#!/bin/sh\n");
      chmodSync(plain, 0o600);
      expect(await startOutcome([join(dir, "missing")])).toBe(constants.errno.ENOENT);
      expect(await startOutcome([plain])).toBe(constants.errno.EACCES);
      expect(await startOutcome([dir])).toBe(constants.errno.EACCES);
      expect(await startOutcome(["true"], join(dir, "gone"))).toBe(constants.errno.ENOENT);
      expect(await startOutcome(["sh", "-c", "exit 3"])).toBe(`started ${3 << 8}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
