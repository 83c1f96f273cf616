/**
 * derun's stdout and stderr are files (or /dev/null): writes there never wait, so derun writes them
 * on its main thread and starts no writer thread (recorder/forward.ts). The bytes in each file and in
 * the transcript are still exactly the command's, per stream; through the real CLI, with more output
 * than the writer's ring holds.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { derunEnv, derunShell, randomBytes, sha256, tempDir } from "../helpers/cli.ts";
import { channelBytes, onlySession } from "../helpers/session.ts";

const DERUN = derunShell();
const TIMEOUT = 60_000;

async function bash(script: string, stateRoot: string, cwd: string): Promise<number> {
  const proc = Bun.spawn(["bash", "-c", script], { env: derunEnv(stateRoot), cwd, stdin: "ignore", stdout: "ignore", stderr: "inherit" });
  return await proc.exited;
}

describe("derun run with its output in files", () => {
  test(
    "stdout and stderr to files: each file and each recorded channel hold exactly the command's bytes",
    async () => {
      using state = tempDir();
      using work = tempDir("derun-file-stdout-");
      const [out, err] = [randomBytes(3 * 1024 * 1024 + 7), randomBytes(1024 * 1024 + 3)];
      writeFileSync(join(work.path, "a"), out);
      writeFileSync(join(work.path, "b"), err);
      const exit = await bash(`${DERUN} run -- sh -c 'cat a; cat b >&2' > out.bin 2> err.bin`, state.path, work.path);
      expect(exit).toBe(0);
      expect(sha256(readFileSync(join(work.path, "out.bin")))).toBe(sha256(out));
      expect(sha256(readFileSync(join(work.path, "err.bin")))).toBe(sha256(err));
      const session = onlySession(state.path);
      expect(sha256(channelBytes(session, "stdout"))).toBe(sha256(out));
      expect(sha256(channelBytes(session, "stderr"))).toBe(sha256(err));
    },
    TIMEOUT,
  );

  test(
    "stdout to /dev/null, appended to a file for stderr: the transcript is exact",
    async () => {
      using state = tempDir();
      using work = tempDir("derun-file-stdout-");
      const out = randomBytes(5 * 1024 * 1024 + 1);
      writeFileSync(join(work.path, "a"), out);
      writeFileSync(join(work.path, "err.bin"), "before\n");
      const exit = await bash(`${DERUN} run -- sh -c 'cat a; echo done >&2' > /dev/null 2>> err.bin`, state.path, work.path);
      expect(exit).toBe(0);
      expect(readFileSync(join(work.path, "err.bin"), "utf8")).toBe("before\ndone\n");
      const session = onlySession(state.path);
      expect(sha256(channelBytes(session, "stdout"))).toBe(sha256(out));
    },
    TIMEOUT,
  );
});
