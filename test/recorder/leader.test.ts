/**
 * The session leader derun runs a command under in a job-control shell (a tmux pane with an
 * interactive bash), seen from outside as a user or a supervisor sees it: its name, its signals,
 * its fds. Each check reads /proc once the command is running, never after a fixed time.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { constants } from "node:os";
import { join } from "node:path";
import { derunArgv, derunEnv, tempDir } from "../helpers/cli.ts";
import { onlySession } from "../helpers/session.ts";
import { hasTmux, openShellPane } from "../helpers/tmux.ts";

const TIMEOUT = 90_000;
const linux = process.platform === "linux";

/** A field of /proc/<pid>/status. */
const status = (pid: number, field: string): string =>
  new RegExp(`^${field}:\\s*(.*)$`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? "";
const parentOf = (pid: number) => Number(status(pid, "PPid"));
/** Whether signal `signo` is in a /proc signal mask (hex). */
const inMask = (mask: string, signo: number) => (BigInt(`0x${mask}`) >> BigInt(signo - 1)) & 1n;

/**
 * A command that cleans up on SIGTERM (its log: `log`), slowly enough for a hang-up to cut it short.
 * It traps SIGINT and dies of it again: bare bash survives a Ctrl-C that lands just after its `sleep`
 * exited (it takes the child's clean exit for "the child handled it"): 8 of 200 tries here, no derun.
 */
const GRACEFUL =
  `bash -c 'trap "echo got TERM >> log; sleep 0.3; echo cleanup done >> log; exit 0" TERM; trap "trap - INT; kill -INT $$" INT; ` +
  `echo "pid=$$"; while :; do sleep 0.05; done'`;

describe.skipIf(!hasTmux || !linux)("the session leader (job-control shell in tmux)", () => {
  test(
    "SIGTERM to derun and the leader alike (pkill -f, killall) ends the command cleanly, once",
    async () => {
      using state = tempDir();
      using dir = tempDir("derun-leader-");
      await using pane = await openShellPane(dir.path, derunEnv(state.path), derunArgv());
      pane.run(`derun run -- ${GRACEFUL}; echo "status=$?"`);
      const screen = await pane.settled((s) => /pid=\d+$/.test(s), "the command's pid");
      const command = Number(/pid=(\d+)$/.exec(screen)?.[1]);
      const leader = parentOf(command);
      const derun = parentOf(leader);
      expect(status(derun, "Name")).not.toBe("derun-leader");
      // Told apart from derun: by name, and by command line.
      expect(readFileSync(`/proc/${leader}/comm`, "utf8").trim()).toBe("derun-leader");
      expect(readFileSync(`/proc/${leader}/cmdline`, "utf8").replaceAll("\0", " ").trim()).toBe("derun-leader");
      process.kill(leader, "SIGTERM");
      process.kill(derun, "SIGTERM");
      const end = await pane.settled((s) => /status=\d+\n\$$/.test(s), "derun's exit status");
      expect(readFileSync(join(dir.path, "log"), "utf8")).toBe("got TERM\ncleanup done\n");
      expect(end).toMatch(/status=0\n\$$/);
      expect(onlySession(state.path).final).toMatchObject({ state: "exited", exit_code: 0 });
    },
    TIMEOUT,
  );

  test(
    "the leader ignores what derun forwards, blocks nothing, and its own pipes close on exec; the wake pipe never blocks",
    async () => {
      using state = tempDir();
      using dir = tempDir("derun-leader-");
      await using pane = await openShellPane(dir.path, derunEnv(state.path), derunArgv());
      pane.run(`derun run -- ${GRACEFUL}`);
      const screen = await pane.settled((s) => /pid=\d+$/.test(s), "the command's pid");
      const command = Number(/pid=(\d+)$/.exec(screen)?.[1]);
      const leader = parentOf(command);
      const ignored = status(leader, "SigIgn");
      for (const signal of ["SIGTERM", "SIGINT", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM"] as const) {
        expect({ signal, ignored: inMask(ignored, constants.signals[signal]) }).toEqual({ signal, ignored: 1n });
      }
      // SIGHUP is the leader's own: the hang-up of the terminal it leads, passed on to the command.
      expect(inMask(status(leader, "SigCgt"), constants.signals.SIGHUP)).toBe(1n);
      expect(BigInt(`0x${status(leader, "SigBlk")}`)).toBe(0n);
      // The command gets none of that.
      expect(inMask(status(command, "SigIgn"), constants.signals.SIGTERM)).toBe(0n);
      const fds = readdirSync(`/proc/${leader}/fd`)
        .map(Number)
        .filter((fd) => fd > 2);
      const flags = (fd: number) =>
        Number.parseInt(/^flags:\s*(\d+)$/m.exec(readFileSync(`/proc/${leader}/fdinfo/${fd}`, "utf8"))?.[1] ?? "0", 8);
      const O_NONBLOCK = 0o4000;
      const O_CLOEXEC = 0o2000000;
      for (const fd of fds) expect({ fd, cloexec: (flags(fd) & O_CLOEXEC) !== 0 }).toEqual({ fd, cloexec: true });
      // The wake pipe is the one pipe both of whose ends the leader holds.
      const pipes = fds.map((fd) => ({ fd, target: readlinkSync(`/proc/${leader}/fd/${fd}`) })).filter((p) => p.target.startsWith("pipe:"));
      const wake = pipes.filter((p) => pipes.filter((q) => q.target === p.target).length === 2);
      expect(wake).toHaveLength(2);
      for (const { fd } of wake) expect({ fd, nonblocking: (flags(fd) & O_NONBLOCK) !== 0 }).toEqual({ fd, nonblocking: true });
      pane.keys("C-c");
      await pane.prompt();
    },
    TIMEOUT,
  );
});
