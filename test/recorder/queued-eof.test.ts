/**
 * An end of file that reaches the user's terminal while derun takes it over (a harness's Ctrl-D:
 * `script -qefc "derun run -- ..." /dev/null </dev/null` sends one when its stdin ends) is never
 * echoed: the terminal would not echo it, in canonical mode or raw. derun drains the canonical queue
 * with VEOF disabled; an EOF arriving then must not be echoed as `^D`. The test keeps typing Ctrl-D
 * while derun starts, so some land in that window, and compares the screen with the bare command's.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { derunEnv, derunShell, tempDir, text } from "../helpers/cli.ts";
import { spawnInPty } from "../helpers/pty.ts";

const skip = process.platform === "win32";
const RUNS = 6;

/** Runs `line` in a fresh PTY, typing Ctrl-D every millisecond or so until the file's content shows. */
async function underEofs(line: string, dir: string, state: string): Promise<string> {
  const run = spawnInPty(["sh", "-c", line], { env: derunEnv(state), cwd: dir });
  let done = false;
  void run.exited.then(() => (done = true));
  // A bound on what is typed: the terminal's input queue holds 4 KiB.
  for (let typed = 0; !done && typed < 2000 && !text(run.output()).includes("content"); typed++) {
    run.type("\x04");
    await Bun.sleep(1);
  }
  await run.exited;
  return text(run.output());
}

describe.skipIf(skip)("an EOF typed while derun takes the terminal over", () => {
  test(`is not echoed as ^D (${RUNS} runs beside the bare command)`, async () => {
    using state = tempDir();
    using dir = tempDir("derun-eof-");
    writeFileSync(join(dir.path, "file"), "content\n");
    const command = `sh -c 'stty raw -echo; cat file'`;
    for (let i = 0; i < RUNS; i++) {
      const bare = await underEofs(command, dir.path, state.path);
      expect(bare).toBe("content\n");
      const viaDerun = await underEofs(`exec ${derunShell()} run -- ${command}`, dir.path, state.path);
      expect(viaDerun).toBe(bare);
    }
  }, 120_000);
});
