/**
 * The ways a run in a terminal ends or pauses, in a PTY the test allocates, compared with the same
 * command without derun: the terminal closed under a command that ignores SIGHUP, a command that
 * stops itself where no shell does job control, and the user's terminal modes after every way out.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { derunArgv, derunEnv, derunShell, tempDir, text } from "../helpers/cli.ts";
import { onlySession, readSession } from "../helpers/session.ts";
import { spawnInPty } from "../helpers/pty.ts";
import { processState, waitForProcessState } from "../helpers/threads.ts";

const skip = process.platform === "win32";
const TIMEOUT = 60_000;

/**
 * The pid derun recorded under `key` (`pid`: the command's, `derun_pid`) in session `id`, once it
 * is there: the command may print before derun has written meta.json's pids.
 */
async function recordedPid(stateRoot: string, id: string, key: "pid" | "derun_pid"): Promise<number> {
  const deadline = performance.now() + 20_000;
  for (;;) {
    try {
      const pid = readSession(stateRoot, id).meta[key];
      if (typeof pid === "number" && Number.isInteger(pid) && pid > 1) return pid;
    } catch {
      // not written yet
    }
    if (performance.now() > deadline) throw new Error(`session ${id} never recorded ${key}`);
    await Bun.sleep(5);
  }
}

/** Resolves once process `pid` is gone (reaped), or rejects after a bound far above the need. */
async function gone(pid: number): Promise<void> {
  const deadline = performance.now() + 20_000;
  while (processState(pid) !== undefined && processState(pid) !== "Z") {
    if (performance.now() > deadline) throw new Error(`process ${pid} is still there (${processState(pid)})`);
    await Bun.sleep(5);
  }
}

describe.skipIf(skip)("a run in a terminal ends as without derun (posix-pty)", () => {
  test(
    "closing the terminal ends derun and a command that ignores SIGHUP, as it ends that command without derun",
    async () => {
      using state = tempDir();
      const command = ["bash", "-c", 'trap "" HUP; echo ready; while read -r line; do :; done'];
      const pids: number[] = [];
      for (const argv of [[...derunArgv(), "run", "--session-id", "hup", "--", ...command], command]) {
        const run = spawnInPty(argv, { env: derunEnv(state.path) });
        await run.waitFor((screen) => screen.includes("ready"), "ready");
        const commandPid = argv === command ? run.proc.pid : await recordedPid(state.path, "hup", "pid");
        pids.push(commandPid);
        run.proc.terminal!.close(); // the user closes the window
        await run.proc.exited;
        await gone(commandPid);
      }
      expect(pids.every((pid) => processState(pid) === undefined)).toBe(true);
      // The command's read failed on its hung-up terminal and its loop ended: a normal exit.
      expect(readSession(state.path, "hup").final).toMatchObject({ state: "exited", exit_code: 0 });
    },
    TIMEOUT,
  );

  test(
    "a command that stops itself with no job-control shell around: derun stops too, and both go on at SIGCONT",
    async () => {
      using state = tempDir();
      const command = ["bash", "-c", "kill -STOP $$; echo resumed"];
      const screens = [];
      for (const argv of [[...derunArgv(), "run", "--", ...command], command]) {
        const run = spawnInPty(argv, { env: derunEnv(state.path) });
        await waitForProcessState(run.proc.pid, "T", 20_000);
        run.proc.kill("SIGCONT");
        const exit = await run.exited;
        expect(exit.exitCode).toBe(0);
        screens.push(text(run.output()));
      }
      expect(screens[0]).toBe("resumed\r\n");
      expect(screens[0]).toBe(screens[1]);
      expect(onlySession(state.path).final).toMatchObject({ state: "exited", exit_code: 0 });
    },
    TIMEOUT,
  );

  test(
    "the user's terminal modes are back after every way out: exit, Ctrl-C, the command killed -9, derun killed by SIGTERM or SIGHUP",
    async () => {
      using state = tempDir();
      using dir = tempDir("derun-restore-");
      const derun = derunShell();
      // `stty -ixon intr ^G` makes the modes the user's own, not a default.
      const cases = [
        `${derun} run -- true`,
        `${derun} run --session-id ctrl-c -- sh -c 'echo > ready-ctrl-c; exec sleep 30'`,
        `${derun} run --session-id kill9 -- sh -c 'echo > ready-kill9; exec sleep 30'`,
        `${derun} run --session-id term -- sh -c 'echo > ready-term; exec sleep 30'`,
        `${derun} run --session-id hup -- sh -c 'echo > ready-hup; exec sleep 30'`,
      ];
      const script = [
        "stty -ixon intr ^G; stty -g > before",
        ...cases.map((line, i) => `${line}; stty -g > after-${i}; echo "case ${i} done"`),
      ].join("; ");
      const run = spawnInPty(["sh", "-c", script], { env: derunEnv(state.path), cwd: dir.path });
      /** Resolves once the command of case `name` has started. */
      const ready = async (name: string) => {
        while (!existsSync(join(dir.path, `ready-${name}`))) await Bun.sleep(5);
      };
      await run.waitFor((screen) => screen.includes("case 0 done"), "case 0");
      await ready("ctrl-c");
      run.type("\x07"); // the user's interrupt key
      await run.waitFor((screen) => screen.includes("case 1 done"), "case 1");
      await ready("kill9");
      process.kill(await recordedPid(state.path, "kill9", "pid"), "SIGKILL");
      await run.waitFor((screen) => screen.includes("case 2 done"), "case 2");
      await ready("term");
      process.kill(await recordedPid(state.path, "term", "derun_pid"), "SIGTERM");
      await run.waitFor((screen) => screen.includes("case 3 done"), "case 3");
      await ready("hup");
      process.kill(await recordedPid(state.path, "hup", "derun_pid"), "SIGHUP");
      await run.waitFor((screen) => screen.includes("case 4 done"), "case 4");
      await run.exited;
      const before = readFileSync(join(dir.path, "before"), "utf8");
      for (let i = 0; i < cases.length; i++) expect(readFileSync(join(dir.path, `after-${i}`), "utf8")).toBe(before);
      expect(readSession(state.path, "ctrl-c").final).toMatchObject({ state: "signaled", signal: "SIGINT" });
      expect(readSession(state.path, "kill9").final).toMatchObject({ state: "signaled", signal: "SIGKILL" });
      expect(readSession(state.path, "term").final).toMatchObject({ state: "signaled", signal: "SIGTERM" });
      expect(readSession(state.path, "hup").final).toMatchObject({ state: "signaled", signal: "SIGHUP" });
    },
    TIMEOUT,
  );
});
