/**
 * A resize is recorded where the output stood when derun saw it: after everything read from the
 * command before it, even while those bytes still wait for a slow terminal (they are recorded
 * once written there). It used to take the bytes already recorded, so output read before the
 * resize landed after its event. A real PTY whose reader (the "terminal") is slow, derun on its
 * slave side, a python command.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { derunArgv, derunEnv, REPO_ROOT, tempDir } from "../helpers/cli.ts";
import { onlySession } from "../helpers/session.ts";

const BEFORE = 300_000;

/** The command: BEFORE bytes, a file saying so, then a line once its window was resized. */
const COMMAND = [
  "import os, signal, sys",
  "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGWINCH})",
  `os.write(1, b"x" * ${BEFORE})`,
  "open(sys.argv[1], 'w').close()",
  "signal.sigwait({signal.SIGWINCH})",
  'os.write(1, b"AFTER\\n")',
].join("\n");

/**
 * A slow terminal (about 128 KB/s, so derun's ring holds most of the bytes: a terminal that never
 * read would stop derun and the command with it), resized once the command wrote its bytes; then it
 * reads to the end.
 */
const TERMINAL = [
  "import fcntl, os, pty, struct, sys, termios, time",
  "marker = sys.argv[1]",
  "pid, fd = pty.fork()",
  "if pid == 0:",
  "    os.execvp(sys.argv[2], sys.argv[2:])",
  "total = 0",
  "while not os.path.exists(marker):",
  "    total += len(os.read(fd, 640))",
  "    time.sleep(0.005)",
  "fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack('HHHH', 40, 120, 0, 0))",
  "while True:",
  "    try:",
  "        data = os.read(fd, 65536)",
  "    except OSError:",
  "        break",
  "    if not data:",
  "        break",
  "    total += len(data)",
  "_, status = os.waitpid(pid, 0)",
  "print(total, os.waitstatus_to_exitcode(status))",
].join("\n");

test.skipIf(process.platform !== "linux")(
  "a resize seen while output waits for a slow terminal is recorded after that output",
  async () => {
    using dir = tempDir("derun-resize-offset-");
    const stateRoot = join(dir.path, "state");
    const marker = join(dir.path, "written");
    const run = Bun.spawn(["python3", "-c", TERMINAL, marker, ...derunArgv(), "run", "--", "python3", "-c", COMMAND, marker], {
      env: derunEnv(stateRoot),
      cwd: REPO_ROOT,
      stdout: "pipe",
    });
    const [total, status] = (await new Response(run.stdout).text()).trim().split(" ").map(Number);
    expect(status).toBe(0);
    const session = onlySession(stateRoot);
    expect(session.output.length).toBe(total!);
    const after = Buffer.from(session.output).indexOf("AFTER");
    expect(after).toBe(BEFORE);
    const [event] = session.events;
    expect(event).toMatchObject({ type: "resize", cols: 120, rows: 40 });
    // All but what the command's PTY may still have held when derun saw the resize (at most 64 KiB),
    // and nothing of what came after.
    expect(Number(event!.offset)).toBeGreaterThan(BEFORE - 65_536);
    expect(Number(event!.offset)).toBeLessThanOrEqual(BEFORE);
  },
  60_000,
);
