/**
 * What reaches the command's terminal from the user's, in a PTY the test allocates, compared with
 * the same command without derun: keys and EOFs typed before derun took the terminal over (once,
 * in order, an EOF as an EOF, echoed once), the end of derun's stdin, and the user's own terminal
 * modes (special characters included).
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { derunEnv, derunShell, tempDir, text } from "../helpers/cli.ts";
import { readSession, sessionIds } from "../helpers/session.ts";
import { spawnInPty, type PtyRun } from "../helpers/pty.ts";

const skip = process.platform === "win32";
const TIMEOUT = 60_000;

/** Runs `script(prefix)` with derun's command line as the prefix, then with none, each in a fresh PTY driven by `drive`. */
async function inShell(script: (prefix: string) => string, drive: (run: PtyRun, dir: string) => Promise<void> = async () => {}) {
  using state = tempDir();
  const results = [];
  for (const prefix of [`${derunShell()} run --`, ""]) {
    using dir = tempDir("derun-input-");
    const run = spawnInPty(["sh", "-c", script(prefix)], { env: derunEnv(state.path), cwd: dir.path });
    await drive(run, dir.path);
    const exit = await run.exited;
    results.push({ ...exit, screen: text(run.output()) });
  }
  const sessions = sessionIds(state.path).map((id) => readSession(state.path, id));
  return { viaDerun: results[0]!, bare: results[1]!, sessions };
}

describe.skipIf(skip)("the user's terminal reaches the command's (posix-pty)", () => {
  test(
    "keys and an EOF typed before derun takes the terminal over arrive once, in order, the EOF as an EOF",
    async () => {
      // The shell holds the command back until the test has typed: a whole line, Ctrl-D, and the
      // start of another line, all still queued by the terminal (and echoed by it) when it starts.
      const script = (prefix: string) => `echo "type now"; until [ -e go ]; do sleep 0.01; done; exec ${prefix} od -c`;
      const { viaDerun, bare, sessions } = await inShell(script, async (run, dir) => {
        await run.waitFor((screen) => screen.includes("type now"), "type now");
        run.type("hello\r");
        await run.waitFor((screen) => screen.includes("hello\r\n"), "the line echoed");
        run.type("\x04");
        run.type("a");
        // Echoed after the Ctrl-D before it was taken in: both are in the terminal's queue.
        await run.waitFor((screen) => screen.endsWith("hello\r\na"), "the partial line echoed");
        writeFileSync(join(dir, "go"), "");
      });
      expect(bare.screen).toBe("type now\r\nhello\r\na0000000   h   e   l   l   o  \\n\r\n0000006\r\n");
      expect(viaDerun.screen).toBe(bare.screen);
      expect(viaDerun.exitCode).toBe(0);
      expect(sessions[0]!.output.includes(0)).toBe(false);
      expect(text(sessions[0]!.output)).toBe("0000000   h   e   l   l   o  \\n\r\n0000006\r\n");
    },
    TIMEOUT,
  );

  test.skipIf(!Bun.which("script"))(
    'script -qefc "derun run -- cat" /dev/null </dev/null ends at once with no NUL, 20 times in 20',
    async () => {
      using state = tempDir();
      for (let i = 0; i < 20; i++) {
        const proc = Bun.spawn(["script", "-qefc", `${derunShell()} run --session-id run-${i} -- cat`, "/dev/null"], {
          env: derunEnv(state.path),
          stdin: "ignore",
          stdout: "pipe",
          stderr: "pipe",
        });
        const screen = await new Response(proc.stdout).bytes();
        // A bound for a hang, far above the ~0.1 s a run takes; not a timing assertion.
        const ended = await Promise.race([proc.exited.then(() => true), Bun.sleep(20_000).then(() => false)]);
        if (!ended) proc.kill("SIGKILL");
        expect(ended).toBe(true);
        expect(proc.exitCode).toBe(0);
        expect(screen.includes(0)).toBe(false);
        expect(text(screen)).not.toContain("^@");
        const session = readSession(state.path, `run-${i}`);
        expect(session.output.length).toBe(0);
        expect(session.final).toMatchObject({ state: "exited", exit_code: 0 });
      }
    },
    TIMEOUT,
  );

  test(
    "the user's terminal modes are the command's: stty -g, and a custom interrupt key",
    async () => {
      const script = (prefix: string) =>
        `stty -ixon intr ^G erase ^H eof ^A; stty -g; ${prefix} stty -g; echo ready; exec ${prefix} sleep 30`;
      const { viaDerun, bare } = await inShell(script, async (run) => {
        await run.waitFor((screen) => screen.includes("ready"), "ready");
        run.type("\x07"); // Ctrl-G, the interrupt key now
      });
      const [mine, commands] = viaDerun.screen.split("\r\n");
      expect(commands).toBe(mine);
      expect(viaDerun.screen).toBe(bare.screen);
      expect(bare.signalCode).toBe("SIGINT");
      expect(viaDerun.signalCode).toBe("SIGINT");
    },
    TIMEOUT,
  );

  test(
    "the EOF key typed after derun took the terminal over ends the command, with the user's own eof key",
    async () => {
      const script = (prefix: string) => `stty eof ^A; echo ready; exec ${prefix} cat`;
      const { viaDerun, bare } = await inShell(script, async (run) => {
        await run.waitFor((screen) => screen.includes("ready"), "ready");
        run.type("x\r");
        await run.waitFor((screen) => screen.endsWith("x\r\nx\r\n"), "the line");
        run.type("\x01");
      });
      expect(bare.exitCode).toBe(0);
      expect(viaDerun.exitCode).toBe(0);
      expect(viaDerun.screen).toBe(bare.screen);
    },
    TIMEOUT,
  );

  test(
    "the end of derun's stdin (not a terminal) is an EOF on the command's terminal",
    async () => {
      using state = tempDir();
      const script =
        `printf 'a\\nb\\n' | ${derunShell()} run --transport posix-pty -- cat; echo "status=$?"; ${derunShell()} run ` +
        `--transport posix-pty -- cat </dev/null; echo "status=$?"`;
      const run = spawnInPty(["sh", "-c", script], { env: derunEnv(state.path) });
      await run.exited;
      const screen = text(run.output());
      expect(screen.match(/status=0/g)).toHaveLength(2);
      expect(sessionIds(state.path)).toHaveLength(2);
      const [piped] = sessionIds(state.path).map((id) => readSession(state.path, id));
      expect(text(piped!.output)).toContain("a\r\nb\r\n");
    },
    TIMEOUT,
  );
});
