/**
 * A slow terminal (read at 64 KiB/s) and a command that writes without end (`yes`): derun reads the
 * command's terminal only as fast as its own takes the output, keeping about a tenth of a second of
 * that pace queued (at least 8 KiB), and reads the Ctrl-C at once, so after it the terminal has
 * little more to take, as without derun (script(1) leaves about 15-30 KiB). Every byte
 * the terminal got is in the transcript, in order, and nothing else. A real PTY read by a python
 * "terminal", derun on its slave side; the same for the bare command.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { derunArgv, derunEnv, REPO_ROOT, sha256, tempDir } from "../helpers/cli.ts";
import { onlySession } from "../helpers/session.ts";

const KiB = 1024;

/** Reads 640 bytes each 10 ms into a file; types Ctrl-C once it has 128 KiB; prints the bytes read after it and the status. */
const TERMINAL = `
import os, pty, sys, time
out = open(sys.argv[1], 'wb')
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
total, after, sent = 0, 0, False
while True:
    try:
        data = os.read(fd, 640)
    except OSError:
        break
    if not data:
        break
    out.write(data)
    total += len(data)
    if sent:
        after += len(data)
    elif total >= 128 * 1024:
        os.write(fd, b'\\x03')
        sent = True
    time.sleep(0.01)
_, status = os.waitpid(pid, 0)
out.close()
print(after, os.waitstatus_to_exitcode(status))
`;

async function underSlowTerminal(argv: readonly string[], received: string, stateRoot: string): Promise<{ after: number; status: number }> {
  const run = Bun.spawn(["python3", "-c", TERMINAL, received, ...argv], { env: derunEnv(stateRoot), cwd: REPO_ROOT, stdout: "pipe" });
  const [after, status] = (await new Response(run.stdout).text()).trim().split(" ").map(Number);
  return { after: after!, status: status! };
}

test.skipIf(process.platform !== "linux")(
  "Ctrl-C on a 64 KiB/s terminal: what derun still had queued is a moment of output, not its whole ring; the transcript is what the " +
    "terminal got",
  async () => {
    using dir = tempDir("derun-slow-terminal-");
    const stateRoot = join(dir.path, "state");
    const bare = await underSlowTerminal(["yes"], join(dir.path, "bare"), stateRoot);
    expect(bare.status).toBe(-2); // yes died of SIGINT
    const received = join(dir.path, "received");
    const viaDerun = await underSlowTerminal([...derunArgv(), "run", "--", "yes"], received, stateRoot);
    expect(viaDerun.status).toBe(-2); // derun died of SIGINT, as `yes` did
    // Bare, the terminal's own buffer (a few KiB); derun adds its backlog and what its reader read
    // ahead (8-16 KiB each at this pace). Before: the chunk Bun's Terminal had read (up to 256 KiB,
    // about 150 KiB measured) after a backlog of 32 KiB; before that, the whole 1 MiB ring.
    expect(viaDerun.after).toBeLessThan(96 * KiB);
    const session = onlySession(stateRoot);
    expect(sha256(session.output)).toBe(sha256(readFileSync(received)));
  },
  120_000,
);
