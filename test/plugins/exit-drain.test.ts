/**
 * The end of a `derun run` on its own PTY when derun's terminal takes nothing for a while just as
 * the command exits (an ssh link that stalls, a terminal busy drawing): the command's last writes
 * wait in the child's PTY, and derun must read and record them once the terminal moves again, as
 * the screen shows them without derun. derun used to stop reading 200 ms after the exit when
 * nothing had been delivered meanwhile, closing the master on what it still held: both the screen
 * and output.bin lost the tail (`seq 1 20000` behind a stalled `script`: 23,679 of 128,894 bytes).
 *
 * derun's terminal here is a real PTY the test opened and does not read until the command has
 * exited and a while more; then it reads everything, to EIO.
 *
 * The same loss came from derun's reader thread run late (seen once at a load of 12): the exit
 * came 200 ms before the thread read the last writes, and derun stopped it with them still in the
 * PTY. Here the thread is stopped (ptrace) over the last writes and the exit, for a while. The
 * pipe transport lost them from the recording the same way (its hand-over still put them on
 * derun's stdout).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openPtmx } from "../../src/pty/ptmx.ts";
import { POLL, pollNow } from "../../src/os/poll-fd.ts";
import { STREAM_READER_THREAD } from "../../src/io/stream-reader-thread.ts";
import { NATIVE_PUMP_ENV, NATIVE_PUMP_THREAD } from "../../src/io/native-pump.ts";
import { derunArgv, derunEnv, tempDir } from "../helpers/cli.ts";
import { spawnInPty } from "../helpers/pty.ts";
import { processAlive, processState, threadsNamed } from "../helpers/threads.ts";
import { freezeThread } from "../helpers/thread-freeze.ts";
import { collect, waitUntil } from "../helpers/cli-recordings.ts";
import { readSession } from "../helpers/session.ts";

/**
 * Lines of `seq` (34,893 bytes with the terminal's CRs): more than derun's stalled terminal takes
 * in (derun forwarded 28.6 KB of them before it stalled), and well within what derun, its
 * terminal and the child's PTY hold together, so the command finishes while the terminal stalls
 * (9,000 lines, 53 KB, may not).
 */
const LINES = 6000;
/**
 * How long derun's terminal stays stalled after the command exited: a stimulus, not a wait for a
 * condition (the result must be the same for any length); five times the drain's idle window.
 */
const STALL_MS = 1000;
/** How long derun's reader thread stays stopped after the command exited: as STALL_MS, a stimulus. */
const LATE_MS = 1000;
/** How long the PTY case waits for the command's exit with the reader frozen (see there). */
const EXIT_WAIT_MS = 10_000;

/** Reads derun's terminal to its end (EIO once derun and the child have closed the slave). */
async function readToEnd(master: number): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  const buffer = new Uint8Array(65536);
  for (;;) {
    let length: number;
    try {
      length = readSync(master, buffer, 0, buffer.length, null);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EIO") break;
      if (code !== "EAGAIN") throw error;
      // Nothing there yet: wait until there is, or the slave side is gone (POLLHUP; the read says EIO).
      await waitUntil(() => pollNow(master, POLL.IN) !== 0, "derun's terminal to be readable or hung up");
      continue;
    }
    if (length === 0) break;
    parts.push(buffer.slice(0, length));
  }
  return Buffer.concat(parts);
}

/** The PTY's two readers: the native pump where it runs (this machine), and the Worker it falls back to. */
const PTY_READERS = [
  { name: "the native pump", thread: NATIVE_PUMP_THREAD, env: { [NATIVE_PUMP_ENV]: "1" } },
  { name: "the reader Worker", thread: STREAM_READER_THREAD, env: { [NATIVE_PUMP_ENV]: "0" } },
] as const;

describe.each(PTY_READERS)("posix-pty, read by $name: the command's last writes behind a stalled terminal", (reader) => {
  test("are all shown and recorded once derun's terminal moves again", async () => {
    using state = tempDir("derun-exit-drain-");
    using work = tempDir("derun-exit-drain-work-");
    const pidFile = join(work.path, "pid");
    const terminal = openPtmx({ cols: 100, rows: 30 });
    try {
      // The shell's pid is written only after seq wrote everything: then it exits at once.
      const script = `seq 1 ${LINES}; echo $$ > '${pidFile}'`;
      const derun = Bun.spawn([...derunArgv(), "run", "--session-id", "stalled", "--", "sh", "-c", script], {
        env: derunEnv(state.path, { TERM: "xterm-256color", ...reader.env }),
        stdio: [terminal.slave, terminal.slave, terminal.slave],
      });
      terminal.closeSlave();
      await waitUntil(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n"), "the command to finish writing");
      const pid = Number(readFileSync(pidFile, "utf8"));
      await waitUntil(() => !processAlive(pid), "the command to exit");
      await Bun.sleep(STALL_MS); // the stall itself (see STALL_MS)
      const screen = await readToEnd(terminal.master);
      expect(await derun.exited).toBe(0);
      const written = Array.from({ length: LINES }, (_, i) => `${i + 1}\r\n`).join("");
      const recorded = new TextDecoder().decode(readSession(state.path, "stalled").output);
      // Compared by length first: a failure shows the figures, not two 90 KB strings.
      expect(recorded.length).toBe(written.length);
      expect(recorded).toBe(written);
      expect(new TextDecoder().decode(screen)).toEndWith(written.slice(-2000));
    } finally {
      terminal.close();
    }
  });

  test("the last writes read by a reader thread run late after the exit are recorded", async () => {
    using state = tempDir("derun-exit-drain-");
    using work = tempDir("derun-exit-drain-work-");
    const go = join(work.path, "go");
    const script = `echo "starting $$"; printf first-piece; while [ ! -e '${go}' ]; do sleep 0.01; done; printf rest-piece; echo done`;
    const run = spawnInPty([...derunArgv(), "run", "--session-id", "late", "--", "sh", "-c", script], {
      env: derunEnv(state.path, { TERM: "xterm-256color", ...reader.env }),
    });
    await run.waitFor((screen) => screen.includes("first-piece"), "the first piece");
    const pid = Number(/starting (\d+)/.exec(new TextDecoder().decode(run.output()))![1]);
    // The Worker reads the master from 20 ms after the start on (io/stream-reader.ts), the pump at once.
    await waitUntil(() => threadsNamed(run.proc.pid, reader.thread).length > 0, "derun's reader thread");
    const tid = threadsNamed(run.proc.pid, reader.thread)[0]!;
    const frozen = freezeThread(tid);
    try {
      // The thread that reads the master is the one stopped (a traced stop: `t`), so nothing of
      // what follows reaches the screen until it is let go: the case is about that thread.
      expect(processState(tid)).toBe("t");
      writeFileSync(go, "");
      // Seen once in CI (1 run of 4): the command still there 30 s after `go`, the reader frozen.
      // Not understood yet (docs/known-gaps.md); the bytes must be recorded either way, so the
      // freeze ends after EXIT_WAIT_MS and the assertions below still decide.
      const exited = await waitUntil(() => !processAlive(pid), "the command to exit", EXIT_WAIT_MS).then(
        () => true,
        () => false,
      );
      if (!exited) console.warn(`the command (pid ${pid}) had not exited ${EXIT_WAIT_MS} ms after go, its derun's reader frozen`);
      await Bun.sleep(LATE_MS); // the thread's lateness itself (see LATE_MS)
      expect(new TextDecoder().decode(run.output())).not.toContain("rest-piece");
    } finally {
      frozen.thaw();
    }
    expect((await run.exited).exitCode).toBe(0);
    const recorded = new TextDecoder().decode(readSession(state.path, "late").output);
    expect(recorded).toBe(`starting ${pid}\r\nfirst-piecerest-piecedone\r\n`);
    expect(new TextDecoder().decode(run.output())).toEndWith("first-piecerest-piecedone\r\n");
  });
});

describe("pipe: the command's last writes", () => {
  test("read by a reader thread run late after the exit are recorded", async () => {
    using state = tempDir("derun-exit-drain-");
    using work = tempDir("derun-exit-drain-work-");
    const go = join(work.path, "go");
    const script = `echo "starting $$"; printf first-piece; while [ ! -e '${go}' ]; do sleep 0.01; done; printf rest-piece; echo done`;
    const derun = Bun.spawn([...derunArgv(), "run", "--session-id", "late", "--", "sh", "-c", script], {
      env: derunEnv(state.path),
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const stdout = collect(derun.stdout);
    const stderr = new Response(derun.stderr).text();
    await waitUntil(() => new TextDecoder().decode(stdout.bytes()).includes("first-piece"), "the first piece");
    const pid = Number(/starting (\d+)/.exec(new TextDecoder().decode(stdout.bytes()))![1]);
    await waitUntil(() => threadsNamed(derun.pid, STREAM_READER_THREAD).length > 0, "derun's reader thread");
    const reader = freezeThread(threadsNamed(derun.pid, STREAM_READER_THREAD)[0]!);
    try {
      writeFileSync(go, "");
      await waitUntil(() => !processAlive(pid), "the command to exit");
      await Bun.sleep(LATE_MS); // the thread's lateness itself (see LATE_MS)
    } finally {
      reader.thaw();
    }
    expect(await derun.exited).toBe(0);
    expect(await stderr).toBe("");
    const written = `starting ${pid}\nfirst-piecerest-piecedone\n`;
    expect(new TextDecoder().decode(readSession(state.path, "late").output)).toBe(written);
    expect(new TextDecoder().decode(await stdout.done)).toBe(written);
  });
});
