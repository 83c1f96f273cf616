/**
 * A signal derun's caller ignores (`nohup`, a script's `cmd &`, `trap '' INT`) stays ignored for the
 * command, as `exec` leaves it, and derun never forwards it: each case runs the bare command and
 * derun in the same situation and compares. Pipe mode, a PTY the test allocates (the command as the
 * PTY's session leader), a job-control shell in tmux (the command as the job of derun's leader), and
 * a real process group that is sent the signals.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { derunArgv, derunEnv, derunShell, shellQuote, tempDir, text } from "../helpers/cli.ts";
import { spawnInPty } from "../helpers/pty.ts";
import { onlySession, sessionIds } from "../helpers/session.ts";
import { hasTmux, openShellPane } from "../helpers/tmux.ts";
import { until } from "../helpers/until.ts";

const TIMEOUT = 60_000;
const linux = process.platform === "linux";
/** The dispositions a caller leaves ignored: a script's background job (INT, QUIT), nohup (HUP), and one more. */
const TRAP = "trap '' INT QUIT HUP USR1";
/**
 * With a terminal on fd 0, 1 or 2, Bun catches SIGINT and SIGTERM itself before derun's first line runs (to
 * put the terminal back), so whether the caller ignored those two cannot be seen (docs/signals.md).
 */
const TRAP_TTY = "trap '' QUIT HUP USR1 ALRM";
const SHOW = "grep SigIgn /proc/self/status";

/** meta.json of the only session, once there is one (it names the command's pid once it runs). */
const metaOf = (stateRoot: string) => join(stateRoot, "sessions", sessionIds(stateRoot)[0] ?? "-", "meta.json");
const sigIgnOf = (output: string) => /SigIgn:\s*([0-9a-f]+)/.exec(output)?.[1];

describe.skipIf(!linux)("signals the caller ignores stay ignored for the command", () => {
  test("pipe mode: the command's SigIgn is the bare command's", async () => {
    using state = tempDir();
    const run = (prefix: string) =>
      Bun.spawnSync(["sh", "-c", `${TRAP}; ${prefix}${SHOW}`], {
        env: derunEnv(state.path),
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
    const bare = sigIgnOf(run("").stdout.toString());
    const derun = run(`${derunShell()} run -- `);
    expect(bare).toBeDefined();
    expect(bare).not.toBe("0000000000000000");
    expect(sigIgnOf(derun.stdout.toString())).toBe(bare);
    expect(onlySession(state.path).meta.transport_mode).toBe("pipe");
  });

  test(
    "a PTY the test allocates (no job control): the command's SigIgn is the bare command's",
    async () => {
      using state = tempDir();
      const inPty = async (prefix: string) => {
        const run = spawnInPty(["sh", "-c", `${TRAP_TTY}; exec ${prefix}${SHOW}`], { env: derunEnv(state.path) });
        await run.exited;
        return sigIgnOf(text(run.output()));
      };
      const bare = await inPty("");
      expect(bare).toBeDefined();
      expect(await inPty(`${derunShell()} run -- `)).toBe(bare);
      expect(onlySession(state.path).meta.transport_mode).toBe("posix-pty");
    },
    TIMEOUT,
  );

  test.skipIf(!hasTmux)(
    "a job-control shell (tmux): the job's SigIgn is the bare job's",
    async () => {
      using state = tempDir();
      using dir = tempDir("derun-ignored-");
      await using pane = await openShellPane(dir.path, derunEnv(state.path), derunArgv());
      // A subshell that ignores them, then the command as its job, as a script's `cmd &` gets them.
      pane.run(`(${TRAP_TTY}; ${SHOW} | sed 's/^/bare /')`);
      await pane.prompt();
      pane.run(`(${TRAP_TTY}; derun run -- ${SHOW}) 2>&1 | sed 's/^/derun /'`);
      await pane.prompt();
      pane.run(`(${TRAP_TTY}; derun run -- sh -c ${shellQuote(`${SHOW} | sed 's/^/led /'`)})`);
      const screen = await pane.settled(
        (s) => /^bare SigIgn/m.test(s) && /^led SigIgn/m.test(s) && /^derun SigIgn/m.test(s) && s.endsWith("\n$"),
        "all three masks",
      );
      const bare = /^bare SigIgn:\s*(\S+)/m.exec(screen)?.[1];
      expect(bare).toBeDefined();
      expect(/^derun SigIgn:\s*(\S+)/m.exec(screen)?.[1]).toBe(bare);
      // The PTY transport, as the job of derun's leader: the command ignores what its caller ignored.
      expect(/^led SigIgn:\s*(\S+)/m.exec(screen)?.[1]).toBe(bare);
    },
    TIMEOUT,
  );

  test.skipIf(!hasTmux)(
    "a script's background `derun run -- cmd &` with its output on the terminal survives Ctrl-C, as bare",
    async () => {
      using state = tempDir();
      using dir = tempDir("derun-ignored-");
      await using pane = await openShellPane(dir.path, derunEnv(state.path), derunArgv());
      // The job shows its mask, then waits for a file the test writes after the Ctrl-C, then says it lived.
      const job = (mark: string) => shellQuote(`echo ${mark} $(${SHOW}); while [ ! -e go ]; do sleep 0.05; done; echo ${mark} survived`);
      for (const [mark, prefix] of [
        ["bare", ""],
        ["derun", "derun run -- "],
      ] as const) {
        rmSync(join(dir.path, "go"), { force: true });
        pane.run(`bash -c '${prefix}sh -c ${job(mark).replaceAll("'", "'\\''")} & sleep 100'`);
        await pane.settled((s) => new RegExp(`^${mark} SigIgn`, "m").test(s), `${mark}'s mask`);
        pane.keys("C-c");
        await pane.prompt();
        writeFileSync(join(dir.path, "go"), "");
        await pane.settled((s) => new RegExp(`^\\$ ${mark} survived`, "m").test(s), `${mark} surviving the Ctrl-C`);
      }
      const screen = pane.screen();
      const bare = /^bare SigIgn:\s*(\S+)/m.exec(screen)?.[1];
      expect(bare).toBe("0000000000000006"); // SIGINT and SIGQUIT, as POSIX has it
      expect(/^derun SigIgn:\s*(\S+)/m.exec(screen)?.[1]).toBe(bare);
      expect(onlySession(state.path).final).toMatchObject({ state: "exited", exit_code: 0 });
    },
    TIMEOUT,
  );

  test.skipIf(!hasTmux)(
    "`trap '' INT TERM` with a terminal on stdout: SIGINT and SIGTERM are lost to Bun (docs/known-gaps.md), the rest kept",
    async () => {
      using state = tempDir();
      using dir = tempDir("derun-ignored-");
      await using pane = await openShellPane(dir.path, derunEnv(state.path), derunArgv());
      pane.run(`bash -c "trap '' INT TERM HUP; ${SHOW} </dev/null | sed 's/^/bare /'"`);
      await pane.prompt();
      pane.run(`bash -c "trap '' INT TERM HUP; derun run -- ${SHOW} </dev/null"`);
      const screen = await pane.settled((s) => /^SigIgn/m.test(s) && s.endsWith("\n$"), "derun's mask");
      const bare = BigInt(`0x${/^bare SigIgn:\s*(\S+)/m.exec(screen)?.[1]}`);
      const derun = BigInt(`0x${/^SigIgn:\s*(\S+)/m.exec(screen)?.[1]}`);
      const INT_TERM = (1n << 1n) | (1n << 14n);
      expect(bare & INT_TERM).toBe(INT_TERM);
      expect(derun).toBe(bare & ~INT_TERM);
    },
    TIMEOUT,
  );

  /**
   * `nohup cmd &` in a window that closes: the group gets SIGHUP; then SIGINT to the process
   * (ignored too); then SIGTERM ends it. Bare, the command dies of SIGTERM; so must derun's.
   */
  for (const viaDerun of [false, true]) {
    test(
      `a process group sent SIGHUP, SIGINT (both ignored), then SIGTERM ends by SIGTERM (${viaDerun ? "through derun" : "bare"})`,
      async () => {
        using state = tempDir();
        const argv = ["sh", "-c", `trap '' HUP INT; exec ${viaDerun ? `${derunShell()} run -- ` : ""}sleep 300`];
        // A process group (and session) of its own, as a shell's job has.
        const proc = Bun.spawn(argv, { env: derunEnv(state.path), stdin: "ignore", stdout: "ignore", stderr: "ignore", detached: true });
        // Ready once sleep runs: the bare one in place of sh; under derun, once meta.json names it.
        const command = viaDerun
          ? await until("the command's pid", () =>
              existsSync(metaOf(state.path)) ? (onlySession(state.path).meta.pid as number) || undefined : undefined,
            )
          : proc.pid;
        // Ready once it is sleep (a shell may run first, and sets the dispositions).
        await until("sleep", () => (readFileSync(`/proc/${command}/comm`, "utf8").trim() === "sleep" ? true : undefined));
        if (viaDerun) {
          // derun itself keeps them ignored, also once its retention sweep has run beside the command
          // (a listener of its own, once removed, would leave the default action: death).
          const log = join(state.path, "logs", "derun.jsonl");
          await until("the retention sweep", () =>
            existsSync(log) && readFileSync(log, "utf8").includes('"retention_sweep"') ? true : undefined,
          );
          const derunPid = onlySession(state.path).meta.derun_pid as number;
          const ignored = BigInt(`0x${sigIgnOf(readFileSync(`/proc/${derunPid}/status`, "utf8"))}`);
          expect(ignored & 0b11n).toBe(0b11n); // SIGHUP (1) and SIGINT (2)
        }
        process.kill(-proc.pid, "SIGHUP");
        process.kill(proc.pid, "SIGINT");
        process.kill(-proc.pid, "SIGTERM");
        await proc.exited;
        expect(proc.signalCode).toBe("SIGTERM");
        if (viaDerun) expect(onlySession(state.path).final).toMatchObject({ state: "signaled", signal: "SIGTERM" });
      },
      TIMEOUT,
    );
  }
});
