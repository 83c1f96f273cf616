/**
 * pipe mode without a terminal (CI, a supervisor, `timeout`): the command shares derun's process
 * group, so a signal sent to the whole group reaches it from the sender, and derun must not pass it
 * on a second time; one sent to derun's pid alone must be. A real process group of its own (a new
 * session, no terminal), bare and through derun; the command counts what it gets.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { derunArgv, derunEnv, tempDir } from "../helpers/cli.ts";
import { onlySession } from "../helpers/session.ts";
import { until } from "../helpers/until.ts";

/** Counts SIGTERMs and SIGINTs, one line each (from Python's wakeup fd: one byte per delivery); ends on SIGUSR1 with the totals. */
const COUNTER = `import os, signal, sys
log = open(sys.argv[1], "a", buffering=1)
r, w = os.pipe()
os.set_blocking(w, False)
signal.set_wakeup_fd(w)
for signo in (signal.SIGTERM, signal.SIGINT, signal.SIGUSR1):
    signal.signal(signo, lambda signo, frame: None)
print("ready", flush=True)
counts = {signal.SIGTERM: 0, signal.SIGINT: 0}
while True:
    for signo in os.read(r, 64):
        if signo in counts:
            counts[signo] += 1
            log.write(f"{signal.Signals(signo).name}\\n")
        elif signo == signal.SIGUSR1:
            log.write(f"total TERM {counts[signal.SIGTERM]} INT {counts[signal.SIGINT]}\\n")
            os._exit(0)
`;

describe.skipIf(process.platform !== "linux")("pipe mode without a terminal: group and pid signals", () => {
  for (const viaDerun of [true, false]) {
    test(`kill -TERM to the group, then kill -INT to the process: each arrives once (${viaDerun ? "through derun" : "bare"})`, async () => {
      using state = tempDir();
      using dir = tempDir("derun-pipe-group-");
      const counter = join(dir.path, "counter.py");
      const counts = join(dir.path, "counts");
      writeFileSync(counter, COUNTER);
      const argv = [...(viaDerun ? [...derunArgv(), "run", "--"] : []), "python3", counter, counts];
      // A session and process group of its own, without a terminal: as a service or a CI step runs.
      const proc = Bun.spawn(argv, { env: derunEnv(state.path), stdin: "ignore", stdout: "pipe", stderr: "inherit", detached: true });
      // Whatever fails below, nothing of the group outlives the test.
      // (Not `kill -KILL -<pgid>` through /bin/kill: procps' kill reads a lone negative number as a
      // signal, and sent SIGKILL to -1, every process the user may signal.)
      using _group = {
        [Symbol.dispose]: () => {
          try {
            process.kill(-proc.pid, "SIGKILL");
          } catch {
            // the group is gone already
          }
        },
      };
      const reader = proc.stdout.getReader();
      let seen = "";
      while (!seen.includes("ready")) seen += new TextDecoder().decode((await reader.read()).value ?? new Uint8Array());
      const log = join(state.path, "logs", "derun.jsonl");
      if (viaDerun)
        await until("derun watching who sends signals", () =>
          existsSync(log) && readFileSync(log, "utf8").includes('"signal_origins_watched"') ? true : undefined,
        );
      const lines = (name: string) =>
        existsSync(counts)
          ? readFileSync(counts, "utf8")
              .split("\n")
              .filter((line) => line === name).length
          : 0;
      process.kill(-proc.pid, "SIGTERM");
      await until("the group's SIGTERM", () => (lines("SIGTERM") >= 1 ? true : undefined));
      process.kill(proc.pid, "SIGINT");
      await until("the SIGINT", () => (lines("SIGINT") >= 1 ? true : undefined));
      process.kill(proc.pid, "SIGUSR1");
      const total = await until("the totals", () => /^total (.*)$/m.exec(existsSync(counts) ? readFileSync(counts, "utf8") : "")?.[1]);
      await proc.exited;
      expect(total).toBe("TERM 1 INT 1");
      if (viaDerun) {
        // Two signals a few ms apart can merge into one in the kernel: derun's log says which it passed on.
        const forwarded = readFileSync(log, "utf8")
          .split("\n")
          .filter((line) => line.includes('"signal_forwarded"'))
          .map((line) => JSON.parse(line).signal);
        expect(forwarded).toEqual(["SIGINT", "SIGUSR1"]);
        expect(onlySession(state.path).final).toMatchObject({ state: "exited", exit_code: 0 });
      }
    }, 60_000);
  }
});
