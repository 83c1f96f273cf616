/**
 * A Ctrl-C in the first milliseconds of a pipe-mode run (stdout a terminal, stdin not one, derun
 * the terminal's foreground job) ends the command, as it ends the bare one: the key is typed into
 * a real PTY at spread moments after derun's session directory appears (the command is starting
 * then, or has just started), and every run must end by SIGINT. The command ends by itself after
 * 5 s otherwise, with status 0: a Ctrl-C derun lost shows as that exit.
 */
import { expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { derunShell, derunEnv, REPO_ROOT, tempDir } from "../helpers/cli.ts";
import { spawnInPty } from "../helpers/pty.ts";

const ATTEMPTS = 24;
/** The keys land from 0 to this many ms after the session directory appeared. */
const SPREAD_MS = 24;

test.skipIf(process.platform !== "linux")(
  `Ctrl-C 0-${SPREAD_MS} ms after the session directory appears (pipe mode), ${ATTEMPTS} times: every run ends by SIGINT, as bare`,
  async () => {
    using root = tempDir();
    const sessions = path.join(root.path, "sessions");
    const ends: string[] = [];
    for (let i = 0; i < ATTEMPTS; i++) {
      const dir = path.join(sessions, `early-${i}`);
      const run = spawnInPty(["sh", "-c", `exec ${derunShell()} run --session-id early-${i} -- sleep 5 </dev/null`], {
        env: derunEnv(root.path),
        cwd: REPO_ROOT,
      });
      let exited = false;
      void run.exited.then(() => (exited = true));
      while (!exited && !fs.existsSync(dir)) await Bun.sleep(0);
      // The stimulus, not a wait for a result: the key at a spread moment after the directory appeared.
      const delay = (i * SPREAD_MS) / ATTEMPTS;
      if (delay === 0) run.type("\x03");
      else setTimeout(() => run.type("\x03"), delay);
      const end = await run.exited;
      ends.push(`${i}: ${end.signalCode ?? `exit ${end.exitCode}`}`);
    }
    const bare = spawnInPty(["sh", "-c", "exec sleep 5 </dev/null"], { env: derunEnv(root.path) });
    bare.type("\x03");
    expect((await bare.exited).signalCode).toBe("SIGINT");
    expect(ends).toEqual(Array.from({ length: ATTEMPTS }, (_, i) => `${i}: SIGINT`));
  },
  180_000,
);
