/**
 * A terminal that takes no output at all (its program is busy, or the user scrolled back in a
 * terminal that stops reading meanwhile) and a command that writes without end: derun's ring is
 * full, its reader thread waits for room, and a Ctrl-C typed then must still reach the command at
 * once, as bare, where the line discipline acts on it whatever the output does. The reader thread
 * hosts the key relay (io/key-relay-host.ts): waiting for room, it waits for keys too.
 *
 * A real PTY read by a python "terminal" that stops reading after the first 64 KiB; derun on its
 * slave side. The test waits until derun's reader thread waits with stdin watched while the
 * command is held, types Ctrl-C, waits until the command is gone (still reading nothing), and
 * only then lets the terminal take the rest.
 */
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { derunArgv, derunEnv, REPO_ROOT, sha256, tempDir } from "../helpers/cli.ts";
import { onlySession } from "../helpers/session.ts";
import { relayReading, relayThread } from "../helpers/key-relay.ts";
import { untilTrue } from "../helpers/until.ts";

/**
 * Reads 64 KiB, then nothing until told: on "ctrl-c" types it, on "drain" reads to the end and
 * prints the status. Keeps all it read in a file.
 */
const TERMINAL = `
import os, pty, sys
out = open(sys.argv[1], 'wb')
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
total = 0
while total < 64 * 1024:
    data = os.read(fd, 4096)
    out.write(data)
    total += len(data)
print("paused", pid, flush=True)
for line in sys.stdin:
    if line.strip() == "ctrl-c":
        os.write(fd, b'\\x03')
        print("typed", flush=True)
    elif line.strip() == "drain":
        break
while True:
    try:
        data = os.read(fd, 65536)
    except OSError:
        break
    if not data:
        break
    out.write(data)
out.close()
_, status = os.waitpid(pid, 0)
print("status", os.waitstatus_to_exitcode(status), flush=True)
`;

test.skipIf(process.platform !== "linux")(
  "Ctrl-C reaches the command while derun's terminal takes no output and its ring is full; derun then dies of SIGINT, as the " +
    "command; the terminal got what was recorded",
  async () => {
    using dir = tempDir("derun-keys-full-screen-");
    const pidFile = join(dir.path, "pid");
    const command = `echo $$ > ${pidFile}; exec yes`;
    const received = join(dir.path, "received");
    const stateRoot = join(dir.path, "state");
    const terminal = Bun.spawn(["python3", "-c", TERMINAL, received, ...derunArgv(), "run", "--", "sh", "-c", command], {
      env: derunEnv(stateRoot),
      cwd: REPO_ROOT,
      stdin: "pipe",
      stdout: "pipe",
    });
    // On a failure too: the terminal's end hangs derun's up, and derun ends the command.
    try {
      const lines = linesOf(terminal.stdout);
      const derunPid = Number((await lines.next()).value?.split(" ")[1]);
      expect(derunPid).toBeGreaterThan(0);
      await untilTrue("the command's pid", () => existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n"));
      const commandPid = Number(readFileSync(pidFile, "utf8"));
      // Held: derun's reader thread waits (for room; the command's terminal is readable all along) with stdin watched.
      await relayReading(derunPid, await relayThread(derunPid));
      terminal.stdin.write("ctrl-c\n");
      terminal.stdin.flush();
      expect((await lines.next()).value).toBe("typed");
      await untilTrue("the command gone, the terminal still reading nothing", () => isGone(commandPid));
      terminal.stdin.write("drain\n");
      terminal.stdin.end();
      expect((await lines.next()).value).toBe("status -2"); // derun died of SIGINT, as `yes` did
      expect(await terminal.exited).toBe(0);
      // What the terminal got is what was recorded, in order: also what the thread could not show
      // at once, when the terminal stopped reading, went on the main thread's way after the rest.
      expect(sha256(onlySession(stateRoot).output)).toBe(sha256(readFileSync(received)));
    } finally {
      terminal.kill();
    }
  },
  60_000,
);

/** Exited: no such process, or a zombie its parent has yet to reap. */
function isGone(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "")[0] === "Z";
  } catch {
    return true;
  }
}

async function* linesOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of stream) {
    buffered += decoder.decode(chunk, { stream: true });
    for (let at = buffered.indexOf("\n"); at !== -1; at = buffered.indexOf("\n")) {
      yield buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
    }
  }
}
