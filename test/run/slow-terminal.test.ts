/**
 * A slow terminal (64 KB/s) and a command that writes without end (`yes`): derun keeps only a
 * moment of output ahead of the terminal, holding the command's output back at its own terminal
 * beyond that, so a Ctrl-C ends it and derun about as soon as without derun (the terminal got
 * the whole 1 MiB ring after the Ctrl-C, 16 s of it), and a key or a signal never waits for the
 * terminal. Every byte the terminal got is in the transcript, in order, and nothing else.
 * A real PTY read by a python "terminal", derun on its slave side.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { derunArgv, derunEnv, REPO_ROOT, sha256, tempDir } from "../helpers/cli.ts";
import { onlySession } from "../helpers/session.ts";

const KiB = 1024;

/** Reads 640 bytes each 10 ms into a file; types `key` once it has 128 KiB; prints the bytes read after it and derun's status. */
const TERMINAL = [
  "import os, pty, sys, time",
  "out, key = open(sys.argv[1], 'wb'), bytes.fromhex(sys.argv[2])",
  "pid, fd = pty.fork()",
  "if pid == 0:",
  "    os.execvp(sys.argv[3], sys.argv[3:])",
  "total, after, sent = 0, 0, False",
  "while True:",
  "    try:",
  "        data = os.read(fd, 640)",
  "    except OSError:",
  "        break",
  "    if not data:",
  "        break",
  "    out.write(data)",
  "    total += len(data)",
  "    if sent:",
  "        after += len(data)",
  "    elif total >= 128 * 1024:",
  "        os.write(fd, key)",
  "        sent = True",
  "    time.sleep(0.01)",
  "_, status = os.waitpid(pid, 0)",
  "out.close()",
  "print(after, os.waitstatus_to_exitcode(status))",
].join("\n");

test.skipIf(process.platform !== "linux")(
  "Ctrl-C on a slow terminal: derun is out within a moment of output, not the whole ring, and the transcript is what the terminal got",
  async () => {
    using dir = tempDir("derun-slow-terminal-");
    const stateRoot = join(dir.path, "state");
    const received = join(dir.path, "received");
    const run = Bun.spawn(["python3", "-c", TERMINAL, received, "03", ...derunArgv(), "run", "--", "yes"], {
      env: derunEnv(stateRoot),
      cwd: REPO_ROOT,
      stdout: "pipe",
    });
    const [after, status] = (await new Response(run.stdout).text()).trim().split(" ").map(Number);
    expect(status).toBe(-2); // derun died of SIGINT, as `yes` did
    // The ring's budget (a quarter second of the terminal's pace, at least 32 KiB), what the read of
    // the command's terminal had taken, and the terminal's own buffer; the whole ring is 1024 KiB.
    expect(after!).toBeLessThan(384 * KiB);
    const session = onlySession(stateRoot);
    expect(sha256(session.output)).toBe(sha256(readFileSync(received)));
  },
  60_000,
);
