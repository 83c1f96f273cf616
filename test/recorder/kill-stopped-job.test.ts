/**
 * `kill %1` of a stopped job: bash sends the job SIGTERM and then SIGCONT, and a stopped command
 * dies of the SIGTERM the moment it continues. Through derun the same: derun is the job, and the
 * SIGTERM it forwards must reach the command before derun continues it (else a command that stops
 * again at once, as `cat` reading in the background does, keeps it pending and the job stays
 * stopped). An interactive bash in tmux, bare and through derun: a background `cat` stopped on tty
 * input, and `less` suspended with Ctrl-Z (which catches SIGTERM and exits 15).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { derunArgv, derunEnv, tempDir } from "../helpers/cli.ts";
import { onlySession } from "../helpers/session.ts";
import { hasTmux, openShellPane, type ShellPane } from "../helpers/tmux.ts";
import { until } from "../helpers/until.ts";

const TIMEOUT = 90_000;

/** The process state letter (R, S, T...), or undefined once it is gone or a zombie. */
function stateOf(pid: number): string | undefined {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "")[0];
    return state === "Z" ? undefined : state;
  } catch {
    return undefined;
  }
}

/** The job's pid (the bare command, or derun), from `jobs -p`. */
async function jobPid(pane: ShellPane): Promise<number> {
  pane.run("jobs -p | sed 's/^/job-pid /'");
  const screen = await pane.prompt();
  return Number([...screen.matchAll(/^job-pid (\d+)$/gm)].at(-1)?.[1]);
}

/**
 * `kill %1`, then: the job's process is gone, and what bash reports of it once it has noticed (it
 * reaps on SIGCHLD, after the process is gone): the screen once `jobs` no longer lists it as stopped.
 */
async function killJob(pane: ShellPane, pid: number, spec: string): Promise<string> {
  pane.run(`kill ${spec}`);
  await pane.prompt();
  await until(`the job (pid ${pid}) to end`, () => (stateOf(pid) === undefined ? true : undefined));
  for (let attempt = 0; ; attempt++) {
    pane.run("jobs | sed 's/^/listed /'");
    const screen = await pane.prompt();
    if (!/^listed .*Stopped/m.test(screen.slice(screen.lastIndexOf("$ jobs")))) return screen;
    if (attempt === 100) throw new Error(`bash still lists the job as stopped:\n${screen}`);
  }
}

describe.skipIf(!hasTmux || process.platform !== "linux")("kill %1 of a stopped job ends it, as bare (tmux)", () => {
  for (const viaDerun of [false, true]) {
    const prefix = viaDerun ? "derun run -- " : "";
    const label = viaDerun ? "through derun" : "bare";

    test(
      `cat & stopped on tty input, then kill %1: Terminated (${label})`,
      async () => {
        using state = tempDir();
        using dir = tempDir("derun-kill-job-");
        await using pane = await openShellPane(dir.path, derunEnv(state.path), derunArgv());
        // Three times: the order in which derun saw SIGTERM and SIGCONT varied from run to run.
        for (let attempt = 0; attempt < 3; attempt++) {
          pane.run(`${prefix}cat &`);
          await pane.prompt();
          const pid = await jobPid(pane);
          await until("the job stopped on tty input", () => (stateOf(pid) === "T" ? true : undefined));
          const screen = await killJob(pane, pid, "%1");
          expect(screen).toMatch(/Terminated\s+(derun run -- )?cat/);
          pane.run("clear");
          await pane.prompt();
        }
        if (viaDerun) expect(readFinals(state.path)).toEqual(["SIGTERM", "SIGTERM", "SIGTERM"]);
      },
      TIMEOUT,
    );

    test.skipIf(Bun.which("less") === null)(
      `less suspended with Ctrl-Z, then kill %%: ends as bare, exit 15 (${label})`,
      async () => {
        using state = tempDir();
        using dir = tempDir("derun-kill-job-");
        writeFileSync(join(dir.path, "file"), Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n"));
        await using pane = await openShellPane(dir.path, derunEnv(state.path), derunArgv());
        pane.run(`${prefix}less file`);
        await pane.settled((s) => s.includes("line 20"), "less showing the file");
        pane.keys("C-z");
        await pane.prompt();
        const pid = await jobPid(pane);
        await until("the job stopped", () => (stateOf(pid) === "T" ? true : undefined));
        const screen = await killJob(pane, pid, "%%");
        // less catches SIGTERM and exits 15.
        expect(screen).toMatch(/Exit 15\s+(derun run -- )?less file/);
        if (viaDerun) expect(onlySession(state.path).final).toMatchObject({ state: "exited", exit_code: 15 });
      },
      TIMEOUT,
    );
  }
});

/** The signal each session of a state root ended by, in order. */
function readFinals(stateRoot: string): unknown[] {
  const sessions = join(stateRoot, "sessions");
  if (!existsSync(sessions)) return [];
  const ids = readdirSync(sessions).sort();
  return ids.map((id) => JSON.parse(readFileSync(join(sessions, id, "final.json"), "utf8")).signal);
}
