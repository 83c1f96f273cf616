/**
 * Once a write to one of derun's fds failed (2>/dev/full), later output for it must not pile up in
 * derun's memory while output for the other fd waits on a stuck reader: it queues behind it in the
 * writer's ring like any other output, so the child is held back, as it would be without derun.
 * (It was copied aside instead: the review's run grew derun to 4.8 GB in 10 s.)
 * Real derun, real python child, a real FIFO nobody reads as derun's stdout, /dev/full as its stderr.
 */
import { expect, test } from "bun:test";
import { closeSync, constants, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { derunArgv, derunEnv, REPO_ROOT, tempDir } from "../helpers/cli.ts";
import { channelBytes, onlySession, sessionIds } from "../helpers/session.ts";
import { until } from "../helpers/until.ts";

const TIMEOUT = 60_000;
const MiB = 1024 * 1024;

/** One stderr line (its write to /dev/full fails), then on "go" 200 KB of stdout, then endless stderr. */
const CHILD = [
  "import os, sys",
  'os.write(2, b"first stderr line\\n")',
  "sys.stdin.readline()",
  'os.write(1, b"o" * 200_000)',
  "chunk = b'e' * 65536",
  "while True: os.write(2, chunk)",
].join("\n");

const procFile = (pid: number, file: string): string | undefined => {
  try {
    return readFileSync(`/proc/${pid}/${file}`, "utf8");
  } catch {
    return undefined;
  }
};
/** Bytes process `pid` has written so far (its /proc io counter). */
const bytesWritten = (pid: number) => Number(/wchar: (\d+)/.exec(procFile(pid, "io") ?? "")?.[1] ?? 0);
/** Where process (or thread) `pid` sleeps in the kernel. */
const sleepsIn = (pid: number) => procFile(pid, "wchan") ?? "";

test.skipIf(process.platform !== "linux")(
  "output for a failed fd queues behind a stuck one, bounded: the child is held back instead of derun's memory growing",
  async () => {
    using dir = tempDir("derun-failed-fd-");
    const stateRoot = join(dir.path, "state");
    const fifo = join(dir.path, "stdout.fifo");
    Bun.spawnSync(["mkfifo", fifo]);
    // Read-write, so opening does not wait for a reader; nobody ever reads it: derun's stdout is stuck.
    const stuck = openSync(fifo, constants.O_RDWR);
    const full = openSync("/dev/full", "w");
    const derun = Bun.spawn([...derunArgv(), "run", "--", "python3", "-c", CHILD], {
      env: derunEnv(stateRoot),
      cwd: REPO_ROOT,
      stdin: "pipe",
      stdout: stuck,
      stderr: full,
    });
    let childPid = 0;
    try {
      // The stderr line was written (the write failed) once it is recorded: the failure is known.
      const session = await until("the first stderr line recorded", () => {
        if (sessionIds(stateRoot).length === 0) return undefined;
        try {
          const found = onlySession(stateRoot);
          return channelBytes(found, "stderr").length > 0 ? found : undefined;
        } catch {
          return undefined; // meta.json or index.jsonl still being written
        }
      });
      childPid = Number(session.meta.pid);
      derun.stdin.write("go\n");
      await derun.stdin.flush();
      // Held back for good: the child waits in a pipe write (derun reads no more while its stdout is
      // stuck), having written its 200 KB of stdout, and writes nothing more from one look to the next.
      let before = -1;
      const written = await until("the child held back, or writing far past any bound", () => {
        const total = bytesWritten(childPid);
        if (total > 256 * MiB) return total;
        const held = sleepsIn(childPid).includes("pipe_write") && total === before && total > 200_000;
        before = total;
        return held ? total : undefined;
      });
      // derun's queues (at most its 1 MiB rings), a pipe's worth and the 200 KB: nothing near what an
      // unbounded copy takes.
      expect(written).toBeLessThan(8 * MiB);
      const rss = Number(/VmRSS:\s+(\d+) kB/.exec(procFile(derun.pid, "status") ?? "")?.[1] ?? 0) * 1024;
      expect(rss).toBeLessThan(512 * MiB);
    } finally {
      derun.kill("SIGKILL");
      if (childPid > 0) process.kill(childPid, "SIGKILL");
      await derun.exited;
      closeSync(stuck);
      closeSync(full);
    }
  },
  TIMEOUT,
);
