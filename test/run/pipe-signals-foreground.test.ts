/**
 * Pipe mode: the command shares derun's process group, so a Ctrl-C reaches it from the terminal
 * itself while that group is the terminal's foreground; derun forwards a terminal's signals only
 * while it is not. Which it is is looked at on each signal: a job started in the background and
 * brought to the foreground with `fg` sees one Ctrl-C once (it saw it twice when derun decided at
 * its start). A SIGINT a process sends to derun itself with kill() is told from the terminal's
 * (src/core/run/signal-origin.ts) and forwarded, also while derun is in the foreground. A real
 * terminal (tmux) with a user's interactive bash; the command counts.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { derunArgv, derunEnv, tempDir } from "../helpers/cli.ts";
import { onlySession } from "../helpers/session.ts";
import { hasTmux, openShellPane } from "../helpers/tmux.ts";

const TIMEOUT = 60_000;

/** Counts SIGINTs in a file; on SIGUSR1 (forwarded by derun after any SIGINT it forwards) writes the total and ends. */
const COUNTER = `import os, signal, sys
log = open(sys.argv[1], "a", buffering=1)
count = 0
def on_int(signo, frame):
    global count
    count += 1
    log.write("INT\\n")
def on_usr1(signo, frame):
    log.write(f"total {count}\\n")
    os._exit(0)
signal.signal(signal.SIGINT, on_int)
signal.signal(signal.SIGUSR1, on_usr1)
print("ready", os.getpid(), flush=True)
while True:
    signal.pause()
`;

async function until<T>(what: string, look: () => T | undefined): Promise<T> {
  const deadline = performance.now() + 30_000;
  for (;;) {
    const found = look();
    if (found !== undefined) return found;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}

/** The terminal's foreground process group, from the stat of a process on it (its 8th field, tpgid). */
const foregroundGroupOf = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "").split(" ")[5]);
const groupOf = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "").split(" ")[2]);

describe.skipIf(!hasTmux || process.platform !== "linux")("pipe mode: a terminal's signals and derun's foreground (tmux)", () => {
  for (const viaDerun of [true, false]) {
    test(`started with & | cat, then fg: one Ctrl-C arrives once (${viaDerun ? "through derun" : "bare"})`, async () => {
      using state = tempDir();
      using dir = tempDir("derun-pipe-fg-");
      const counter = join(dir.path, "counter.py");
      const counts = join(dir.path, "counts");
      writeFileSync(counter, COUNTER);
      await using pane = await openShellPane(dir.path, derunEnv(state.path), derunArgv());
      pane.run(`${viaDerun ? "derun run -- " : ""}python3 ${counter} ${counts} | cat &`);
      const screen = await pane.settled((s) => /ready \d+$/m.test(s), "ready");
      const command = Number(/ready (\d+)$/m.exec(screen)![1]);
      // The process the user's signals go to: derun, or the bare command.
      const target = viaDerun ? await until("derun's pid", () => Number(onlySession(state.path).meta.derun_pid) || undefined) : command;
      pane.run("fg");
      await until("the job in the terminal's foreground", () => (foregroundGroupOf(command) === groupOf(command) ? true : undefined));
      pane.keys("C-c");
      await until("the command's first SIGINT", () => (existsSync(counts) && readFileSync(counts, "utf8").includes("INT") ? true : undefined));
      // The terminal made SIGINT pending for derun as for the command, before this: derun handles
      // (and forwards) its signals in order, so a SIGINT it forwards reaches the command first.
      process.kill(target, "SIGUSR1");
      const total = await until("the total", () => /^total (\d+)$/m.exec(readFileSync(counts, "utf8"))?.[1]);
      expect(Number(total)).toBe(1);
      await pane.prompt();
    }, TIMEOUT);
  }

  for (const viaDerun of [true, false]) {
    test(`in the foreground, kill -INT to the process, then Ctrl-C: each arrives once (${viaDerun ? "through derun" : "bare"})`, async () => {
      using state = tempDir();
      using dir = tempDir("derun-pipe-fg-");
      const counter = join(dir.path, "counter.py");
      const counts = join(dir.path, "counts");
      writeFileSync(counter, COUNTER);
      await using pane = await openShellPane(dir.path, derunEnv(state.path), derunArgv());
      pane.run(`${viaDerun ? "derun run -- " : ""}python3 ${counter} ${counts} | cat`);
      const screen = await pane.settled((s) => /ready \d+$/m.test(s), "ready");
      const command = Number(/ready (\d+)$/m.exec(screen)![1]);
      const target = viaDerun ? await until("derun's pid", () => Number(onlySession(state.path).meta.derun_pid) || undefined) : command;
      // derun tells who sent a signal from a moment just after the command started (it says so in its log).
      const log = join(state.path, "logs", "derun.jsonl");
      if (viaDerun) await until("derun watching who sends signals", () => (existsSync(log) && readFileSync(log, "utf8").includes('"signal_origins_watched"') ? true : undefined));
      const ints = () => (existsSync(counts) ? readFileSync(counts, "utf8").split("\n").filter((line) => line === "INT").length : 0);
      // The signal a user or an agent sends to the process it started: derun cannot let the
      // terminal have sent it (it did not), so it passes it on.
      process.kill(target, "SIGINT");
      await until("the kill's SIGINT", () => (ints() >= 1 ? true : undefined));
      pane.keys("C-c");
      await until("the Ctrl-C's SIGINT", () => (ints() >= 2 ? true : undefined));
      process.kill(target, "SIGUSR1");
      const total = await until("the total", () => /^total (\d+)$/m.exec(readFileSync(counts, "utf8"))?.[1]);
      expect(Number(total)).toBe(2);
      await pane.prompt();
    }, TIMEOUT);
  }
});
