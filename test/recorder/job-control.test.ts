/**
 * Job control through derun, in a real terminal (a tmux pane) with a user's interactive bash:
 * Ctrl-Z, `jobs`, `bg`, `fg` on `sleep`, vim and less, a command that stops itself, a command started
 * with `&`, and job control inside `derun run -- bash -i`. Each scenario runs once through derun and
 * once bare; the screens must be the same (the job lines name the command, so `derun run -- ` is
 * taken out of them, and PIDs are masked), and the terminal's modes the same before and after.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { derunArgv, derunEnv, tempDir } from "../helpers/cli.ts";
import { sessionIds } from "../helpers/session.ts";
import { processState, waitForProcessState } from "../helpers/threads.ts";
import { hasTmux, openShellPane, type ShellPane } from "../helpers/tmux.ts";
import { until } from "../helpers/until.ts";

const hasVim = Bun.which("vim") !== null;
const hasLess = Bun.which("less") !== null;
const TIMEOUT = 90_000;
const VIM = "vim -u NONE -i NONE -N -n notes.txt";

type Scenario = (pane: ShellPane, prefix: string) => Promise<void>;

/** Runs `scenario` in a fresh pane with `derun run -- ` as the prefix and then bare; returns both screens. */
async function both(scenario: Scenario): Promise<{ viaDerun: string; bare: string }> {
  using state = tempDir();
  const screens: string[] = [];
  for (const prefix of ["derun run -- ", ""]) {
    using dir = tempDir("derun-jobs-");
    writeFileSync(join(dir.path, "notes.txt"), Array.from({ length: 60 }, (_, i) => `line ${i + 1}`).join("\n") + "\n");
    await using pane = await openShellPane(dir.path, derunEnv(state.path), derunArgv());
    pane.run("stty -g");
    const before = lastModes(await pane.prompt());
    await scenario(pane, prefix);
    pane.run("stty -g");
    const screen = await pane.prompt();
    expect(before).toMatch(/^[0-9a-f]+(:[0-9a-f]+){10,}$/);
    expect(lastModes(screen)).toBe(before); // the terminal's modes are the user's again
    screens.push(normalize(screen));
    // The first pass really ran through derun: it recorded a session.
    if (prefix) expect(sessionIds(state.path).length).toBeGreaterThan(0);
  }
  return { viaDerun: screens[0]!, bare: screens[1]! };
}

/**
 * The screen, comparable: `derun run -- ` taken out of job lines, PIDs masked, and bash's notice of
 * a background job that stopped dropped where `jobs` follows (bash prints it before the prompt, or
 * only as `jobs` output, depending on whether the stop came before it drew the prompt: a race even
 * without derun; the tests wait for the stop and then ask `jobs`).
 */
function normalize(screen: string): string {
  const lines = screen
    .replaceAll("derun run -- ", "")
    .replace(/^\[(\d+)\] \d+$/gm, "[$1] PID")
    .split("\n");
  const kept: string[] = [];
  lines.forEach((line, i) => {
    if (/^\[\d+\]\+ +Stopped /.test(line) && lines[i + 1] === "$ jobs") {
      if (kept.at(-1) === "") kept.pop();
      return;
    }
    kept.push(line);
  });
  return kept.join("\n");
}
/** The last `stty -g` line on the screen. */
const lastModes = (screen: string) => screen.split("\n").findLast((line) => /^[0-9a-f]+(:[0-9a-f]+){10,}$/.test(line));

/**
 * Asks `jobs` until bash reports job 1 stopped (bash learns of a stop from its SIGCHLD, which may
 * come after the process is seen stopped), then clears the screen: how many asks it took is no
 * part of what is compared.
 */
async function untilBashSeesStopped(pane: ShellPane): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    pane.run("jobs");
    const lines = (await pane.prompt()).split("\n");
    if (lines.at(-2)?.includes("Stopped")) {
      pane.run("clear");
      await pane.prompt();
      return;
    }
  }
  throw new Error("bash never saw job 1 stopped");
}

const stopped = (screen: string) => /Stopped/.test(screen) && screen.endsWith("\n$");

/** The pid of job 1's process (derun itself, or the bare command), as `jobs -p` tells it. */
async function jobPidOf(pane: ShellPane): Promise<number> {
  pane.run("jobs -p > .job-pid");
  await pane.prompt();
  const pid = Number(await Bun.file(join(pane.dir, ".job-pid")).text());
  if (!Number.isInteger(pid) || pid <= 1) throw new Error(`no pid for job 1: ${pid}`);
  return pid;
}

/** The pid bash printed for job 1 (`[1] 12345`). */
const jobPid = (screen: string) => Number(/^\[1\] (\d+)$/m.exec(screen)?.[1]);

describe.skipIf(!hasTmux)("job control through derun in an interactive bash (tmux)", () => {
  test(
    "sleep: Ctrl-Z stops it, jobs, bg runs it on, fg brings it back, Ctrl-C ends it",
    async () => {
      const { viaDerun, bare } = await both(async (pane, prefix) => {
        pane.run(`${prefix}sh -c 'echo ready; exec sleep 100'`);
        await pane.settled((s) => s.endsWith("ready"), "ready");
        pane.keys("C-z");
        await pane.settled(stopped, "the job stopped");
        pane.run("jobs");
        await pane.prompt();
        pane.run("bg");
        await pane.prompt();
        pane.run("jobs");
        await pane.settled((s) => s.includes("Running") && s.endsWith("\n$"), "the job running");
        pane.run("fg");
        await pane.settled((s) => s.endsWith("exec sleep 100'"), "fg");
        pane.keys("C-c");
        await pane.prompt();
      });
      expect(viaDerun).toContain("Stopped");
      expect(viaDerun).toBe(bare);
    },
    TIMEOUT,
  );

  test(
    "fg of a job bg runs: no SIGCONT, as bare (the one from bg only)",
    async () => {
      using state = tempDir();
      const counts: number[] = [];
      for (const prefix of ["derun run -- ", ""]) {
        using dir = tempDir("derun-jobs-");
        await using pane = await openShellPane(dir.path, derunEnv(state.path), derunArgv());
        const file = (name: string) => join(dir.path, name);
        // The command logs each SIGCONT, and ends once the test writes `stop`.
        pane.run(`${prefix}bash -c 'echo $$ > pid; trap "echo cont >> log" CONT; while [ ! -e stop ]; do sleep 0.02; done'`);
        const pid = await until("the command's pid", () =>
          existsSync(file("pid")) ? Number(readFileSync(file("pid"), "utf8")) || undefined : undefined,
        );
        pane.keys("C-z");
        await pane.settled(stopped, "the job stopped");
        pane.run("bg");
        await pane.prompt();
        await until("bg's SIGCONT logged", () => (existsSync(file("log")) ? true : undefined));
        pane.run("fg");
        // fg done once the command's group is its terminal's foreground (the 8th field of stat is tpgid).
        await until("the command in its terminal's foreground", () => {
          const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
          return fields[5] === fields[2] ? true : undefined;
        });
        writeFileSync(file("stop"), "");
        await pane.prompt();
        counts.push(readFileSync(file("log"), "utf8").split("\n").filter(Boolean).length);
      }
      expect(counts[1]).toBe(1);
      expect(counts[0]).toBe(counts[1]!);
    },
    TIMEOUT,
  );

  test.skipIf(!hasVim)(
    "vim: Ctrl-Z suspends it, fg redraws it, bg stops it again on its terminal (tty output), :q ends it",
    async () => {
      const { viaDerun, bare } = await both(async (pane, prefix) => {
        pane.run(`${prefix}${VIM}`);
        await pane.settled((s) => s.includes("line 20"), "vim");
        pane.keys("C-z");
        await pane.settled(stopped, "vim stopped");
        const pid = await jobPidOf(pane);
        pane.run("fg");
        await pane.settled((s) => s.includes("line 20") && !s.includes("Stopped"), "vim again");
        pane.keys("C-z");
        await pane.settled(stopped, "vim stopped again");
        pane.run("bg");
        await pane.prompt();
        // vim meets its terminal in the background and stops again: wait for that, then ask.
        await waitForProcessState(pid, "T", 30_000);
        await untilBashSeesStopped(pane);
        pane.run("jobs");
        await pane.settled((s) => /Stopped.*\n\$$/.test(s), "vim stopped in the background");
        pane.run("fg");
        await pane.settled((s) => s.includes("line 20") && !s.includes("Stopped"), "vim once more");
        pane.keys(":q", "Enter");
        await pane.prompt();
      });
      expect(viaDerun).toBe(bare);
    },
    TIMEOUT,
  );

  test.skipIf(!hasLess)(
    "less: Ctrl-Z suspends it and fg brings it back",
    async () => {
      const { viaDerun, bare } = await both(async (pane, prefix) => {
        pane.run(`${prefix}less notes.txt`);
        await pane.settled((s) => s.includes("line 20"), "less");
        pane.keys("C-z");
        await pane.settled(stopped, "less stopped");
        pane.run("fg");
        await pane.settled((s) => s.includes("line 20") && !s.includes("Stopped"), "less again");
        pane.keys("q");
        await pane.prompt();
      });
      expect(viaDerun).toBe(bare);
    },
    TIMEOUT,
  );

  test(
    "a command that stops itself gives the prompt back, and fg continues it",
    async () => {
      const { viaDerun, bare } = await both(async (pane, prefix) => {
        pane.run(`${prefix}bash -c 'kill -STOP $$; echo resumed'`);
        await pane.settled(stopped, "the job stopped");
        pane.run("fg");
        await pane.settled((s) => s.endsWith("resumed\n$"), "resumed");
      });
      expect(viaDerun).toBe(bare);
    },
    TIMEOUT,
  );

  test.skipIf(!hasVim)(
    "started with &: vim stops on its terminal as without derun, fg brings it up",
    async () => {
      const { viaDerun, bare } = await both(async (pane, prefix) => {
        pane.run(`${prefix}${VIM} &`);
        const pid = jobPid(await pane.settled((s) => /^\[1\] \d+$/m.test(s) && s.endsWith("\n$"), "the job's pid"));
        await waitForProcessState(pid, "T", 30_000);
        await untilBashSeesStopped(pane);
        pane.run("jobs");
        await pane.settled((s) => /Stopped.*\n\$$/.test(s), "vim stopped");
        pane.run("fg");
        await pane.settled((s) => s.includes("line 20"), "vim");
        pane.keys(":q", "Enter");
        await pane.prompt();
        expect(processState(pid)).toBeUndefined();
      });
      expect(viaDerun).toBe(bare);
    },
    TIMEOUT,
  );

  test(
    "closing the terminal ends a command that ignores SIGHUP, as without derun (no process left)",
    async () => {
      using state = tempDir();
      for (const prefix of ["derun run -- ", ""]) {
        using dir = tempDir("derun-jobs-");
        const pane = await openShellPane(dir.path, derunEnv(state.path), derunArgv());
        pane.run(`${prefix}bash -c 'trap "" HUP; echo "pid=$$"; while read -r line; do :; done'`);
        const screen = await pane.settled((s) => /pid=\d+$/.test(s), "the command's pid");
        const pid = Number(/pid=(\d+)$/.exec(screen)?.[1]);
        await pane[Symbol.asyncDispose](); // the user closes the window
        const deadline = performance.now() + 20_000;
        while (processState(pid) !== undefined && performance.now() < deadline) await Bun.sleep(5);
        expect(processState(pid)).toBeUndefined();
      }
      expect(sessionIds(state.path)).toHaveLength(1);
    },
    TIMEOUT,
  );

  test(
    "job control inside derun run -- bash -i matches bare bash",
    async () => {
      const { viaDerun, bare } = await both(async (pane, prefix) => {
        pane.run(`${prefix}env PS1='in$ ' bash --norc --noprofile -i`);
        const inner = (what: string) => pane.settled((s) => s.endsWith("in$"), what);
        await inner("the inner prompt");
        pane.run("sleep 100 &");
        await inner("sleep started");
        pane.run("jobs");
        await inner("jobs");
        pane.run("fg");
        await pane.settled((s) => s.endsWith("sleep 100"), "fg");
        pane.keys("C-z");
        await pane.settled((s) => /Stopped.*\nin\$$/.test(s), "sleep stopped");
        pane.run("bg");
        await inner("bg");
        pane.run("fg");
        await pane.settled((s) => s.endsWith("sleep 100"), "fg again");
        pane.keys("C-c");
        await inner("sleep ended");
        pane.run("exit");
        await pane.prompt();
      });
      expect(viaDerun).toBe(bare);
    },
    TIMEOUT,
  );
});
