/**
 * No loss at exit: a command that prints ~100 KB and exits at once, 200 times in a row in each mode.
 * Every run's screen/stdout and output.bin must hold every byte.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { derunArgv, derunEnv, randomBytes, runDerun, sha256, tempDir } from "../helpers/cli.ts";
import { readSession } from "../helpers/session.ts";
import { spawnInPty } from "../helpers/pty.ts";

const RUNS = 200;
const SIZE = 100_000;

describe("200 back-to-back runs lose no byte", () => {
  test("pipe mode", async () => {
    using state = tempDir();
    using data = tempDir("derun-data-");
    const blob = randomBytes(SIZE);
    writeFileSync(join(data.path, "blob"), blob);
    const expected = sha256(blob);
    for (let run = 0; run < RUNS; run++) {
      const id = `pipe-${run}`;
      const result = await runDerun(["run", "--session-id", id, "--", "cat", "blob"], { stateRoot: state.path, cwd: data.path });
      expect(result.exitCode).toBe(0);
      expect(sha256(result.stdout)).toBe(expected);
      expect(sha256(readSession(state.path, id).output)).toBe(expected);
    }
  }, 240_000);

  test.skipIf(process.platform === "win32")(
    "PTY mode",
    async () => {
      using state = tempDir();
      using data = tempDir("derun-data-");
      const blob = randomBytes(SIZE);
      writeFileSync(join(data.path, "blob"), blob);
      const expected = sha256(blob);
      const env = derunEnv(state.path);
      for (let run = 0; run < RUNS; run++) {
        const id = `pty-${run}`;
        const pty = spawnInPty([...derunArgv(), "run", "--session-id", id, "--", "sh", "-c", "stty raw -echo; cat blob"], {
          env,
          cwd: data.path,
        });
        const exit = await pty.exited;
        expect(exit.exitCode).toBe(0);
        expect(sha256(pty.output())).toBe(expected);
        expect(sha256(readSession(state.path, id).output)).toBe(expected);
      }
    },
    240_000,
  );
});
