/**
 * Pipe mode: the command shares derun's process group, so a Ctrl-C reaches it from the terminal
 * itself while that group is the terminal's foreground; derun forwards a terminal's signals only
 * while it is not. Which it is is looked at on each signal: a job started in the background and
 * brought to the foreground with `fg` sees one Ctrl-C once (it saw it twice when derun decided at
 * its start). A SIGINT a process sends to derun itself with kill() is told from the terminal's
 * (src/recorder/group-sentinel.ts) and forwarded, also while derun is in the foreground; one sent
 * to the job's whole group reaches the command once. A real
 * terminal (tmux) with a user's interactive bash; the command counts.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { derunArgv, derunEnv, tempDir } from "../helpers/cli.ts";
import { onlySession } from "../helpers/session.ts";
import { hasTmux, openShellPane, type ShellPane } from "../helpers/tmux.ts";
import { until } from "../helpers/until.ts";

const TIMEOUT = 60_000;

/**
 * Counts SIGINTs in a file; on SIGUSR1 (forwarded by derun after any SIGINT it forwards) writes the
 * total and ends. Counted from Python's wakeup fd, one byte per delivery its C handler saw: two
 * SIGINTs a moment apart are two, where Python's own handlers may run once for both.
 */
const COUNTER = `import os, signal, sys
log = open(sys.argv[1], "a", buffering=1)
r, w = os.pipe()
os.set_blocking(w, False)
signal.set_wakeup_fd(w)
signal.signal(signal.SIGINT, lambda signo, frame: None)
signal.signal(signal.SIGUSR1, lambda signo, frame: None)
print("ready", os.getpid(), flush=True)
count = 0
while True:
    for signo in os.read(r, 64):
        if signo == signal.SIGINT:
            count += 1
            log.write("INT\\n")
        elif signo == signal.SIGUSR1:
            log.write(f"total {count}\\n")
            os._exit(0)
`;

/** The terminal's foreground process group, from the stat of a process on it (its 8th field, tpgid). */
const foregroundGroupOf = (pid: number) =>
  Number(
    readFileSync(`/proc/${pid}/stat`, "utf8")
      .replace(/^.*\) /s, "")
      .split(" ")[5],
  );
const groupOf = (pid: number) =>
  Number(
    readFileSync(`/proc/${pid}/stat`, "utf8")
      .replace(/^.*\) /s, "")
      .split(" ")[2],
  );

/** The counter running in a user's bash in tmux, through derun or bare, and the process its signals go to. */
interface Counter extends AsyncDisposable {
  readonly pane: ShellPane;
  /** The file the counter writes. */
  readonly counts: string;
  /** The counter's own pid. */
  readonly command: number;
  /** The process a user's or an agent's signals go to: derun, or the bare command. */
  readonly target: number;
  /** derun's log, under the state root. */
  readonly log: string;
}

/** Starts the counter (`&`: in the background), once it says it is ready; removed with its files when disposed. */
async function startCounter(viaDerun: boolean, background: boolean): Promise<Counter> {
  await using stack = new AsyncDisposableStack();
  const state = stack.use(tempDir());
  const dir = stack.use(tempDir(background ? "derun-pipe-bg-" : "derun-pipe-fg-"));
  const counter = join(dir.path, "counter.py");
  const counts = join(dir.path, "counts");
  writeFileSync(counter, COUNTER);
  const pane = stack.use(await openShellPane(dir.path, derunEnv(state.path), derunArgv()));
  pane.run(`${viaDerun ? "derun run -- " : ""}python3 ${counter} ${counts} | cat${background ? " &" : ""}`);
  const screen = await pane.settled((s) => /ready \d+$/m.test(s), "ready");
  const command = Number(/ready (\d+)$/m.exec(screen)![1]);
  const target = viaDerun ? await until("derun's pid", () => Number(onlySession(state.path).meta.derun_pid) || undefined) : command;
  const log = join(state.path, "logs", "derun.jsonl");
  const owned = stack.move();
  return { pane, counts, command, target, log, [Symbol.asyncDispose]: () => owned.disposeAsync() };
}

/** derun tells who sent a signal from a moment just after the command started (it says so in its log). */
const watchingOrigins = (log: string) =>
  until("derun watching who sends signals", () =>
    existsSync(log) && readFileSync(log, "utf8").includes('"signal_origins_watched"') ? true : undefined,
  );

/** SIGUSR1 to `target` (forwarded after any SIGINT derun forwarded): the counter's total of SIGINTs. */
async function totalAfterUsr1({ target, counts }: Counter): Promise<number> {
  process.kill(target, "SIGUSR1");
  return Number(await until("the total", () => /^total (\d+)$/m.exec(readFileSync(counts, "utf8"))?.[1]));
}

describe.skipIf(!hasTmux || process.platform !== "linux")("pipe mode: a terminal's signals and derun's foreground (tmux)", () => {
  for (const viaDerun of [true, false]) {
    test(
      `started with & | cat, then fg: one Ctrl-C arrives once (${viaDerun ? "through derun" : "bare"})`,
      async () => {
        await using counter = await startCounter(viaDerun, true);
        const { pane, counts, command } = counter;
        pane.run("fg");
        await until("the job in the terminal's foreground", () => (foregroundGroupOf(command) === groupOf(command) ? true : undefined));
        pane.keys("C-c");
        await until("the command's first SIGINT", () =>
          existsSync(counts) && readFileSync(counts, "utf8").includes("INT") ? true : undefined,
        );
        // The terminal made SIGINT pending for derun as for the command, before this: derun handles
        // (and forwards) its signals in order, so a SIGINT it forwards reaches the command first.
        expect(await totalAfterUsr1(counter)).toBe(1);
        await pane.prompt();
      },
      TIMEOUT,
    );
  }

  for (const viaDerun of [true, false]) {
    test(
      `in the foreground, kill -INT to the process, then Ctrl-C: each arrives once (${viaDerun ? "through derun" : "bare"})`,
      async () => {
        await using counter = await startCounter(viaDerun, false);
        const { pane, counts, target } = counter;
        if (viaDerun) await watchingOrigins(counter.log);
        const ints = () =>
          existsSync(counts)
            ? readFileSync(counts, "utf8")
                .split("\n")
                .filter((line) => line === "INT").length
            : 0;
        // The signal a user or an agent sends to the process it started: derun cannot let the
        // terminal have sent it (it did not), so it passes it on.
        process.kill(target, "SIGINT");
        await until("the kill's SIGINT", () => (ints() >= 1 ? true : undefined));
        pane.keys("C-c");
        await until("the Ctrl-C's SIGINT", () => (ints() >= 2 ? true : undefined));
        expect(await totalAfterUsr1(counter)).toBe(2);
        await pane.prompt();
      },
      TIMEOUT,
    );
  }

  for (const viaDerun of [true, false]) {
    test(
      `in the background, kill -INT to the job's process group: arrives once (${viaDerun ? "through derun" : "bare"})`,
      async () => {
        await using counter = await startCounter(viaDerun, true);
        const { counts, command, log } = counter;
        if (viaDerun) await watchingOrigins(log);
        // The job's group (the pipeline's): the command is in it, through derun as bare.
        process.kill(-groupOf(command), "SIGINT");
        await until("the SIGINT", () => (existsSync(counts) && readFileSync(counts, "utf8").includes("INT") ? true : undefined));
        // Forwarded after any SIGINT derun forwarded: the total counts them all.
        expect(await totalAfterUsr1(counter)).toBe(1);
        // Two SIGINTs a few ms apart can still merge into one in the kernel (a loaded machine may not
        // run the counter between them), so derun's log says too whether it forwarded one.
        if (viaDerun)
          expect(
            readFileSync(log, "utf8")
              .split("\n")
              .filter((line) => line.includes('"signal_forwarded"') && line.includes('"SIGINT"')),
          ).toEqual([]);
      },
      TIMEOUT,
    );
  }
});
