/**
 * The end of a `derun run` whose command leaves a process writing for ever (`yes &` with SIGHUP
 * ignored) while derun's stdout is a pipe read slower than `yes` writes (about 2 MB/s): derun's
 * terminal is held most of the time, yet it takes some all along. The drain after the exit must
 * still give up, after its cap (3 s) and the bounded part of such a hold it does not count (30 s),
 * and derun end. Found in review: derun ran on for ever (46 s and on when stopped; its parent 4.3 s).
 */
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { derunEnv, derunShell, tempDir } from "../helpers/cli.ts";
import { untilTrue } from "../helpers/until.ts";

test("a grandchild writing for ever behind a slow reader does not keep derun running", async () => {
  using dir = tempDir();
  const rc = join(dir.path, "rc");
  const pidFile = join(dir.path, "yes.pid");
  const command = `trap '' HUP; yes & echo \\$! > ${pidFile}; sleep 0.3`;
  // derun's exit status goes to `rc` when it ends; the reader takes 100 KB, then rests 50 ms, to EOF.
  const script =
    `(${derunShell()} run -- sh -c "${command}"; echo $? > ${rc}) | ` +
    `while :; do n=$(head -c 100000 | wc -c); [ "$n" -eq 0 ] && break; sleep 0.05; done`;
  const shell = Bun.spawn(["sh", "-c", script], { env: derunEnv(join(dir.path, "state")), stdout: "ignore", stderr: "inherit" });
  try {
    // 33 s after the exit at most (cap and slow hold); a loaded machine adds seconds, never 50.
    await untilTrue("derun's end", () => existsSync(rc), { timeoutMs: 50_000, everyMs: 50 });
    expect(readFileSync(rc, "utf8").trim()).toBe("0");
  } finally {
    // The grandchild writes on into the pipe (derun handed it over): end it, and with it the reader.
    const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8")) : 0;
    if (Number.isSafeInteger(pid) && pid > 1) process.kill(pid, "SIGKILL");
    shell.kill();
    await shell.exited;
  }
}, 70_000);
