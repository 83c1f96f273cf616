/**
 * `derun run` without a terminal (pipe transport), through the real CLI: what reaches derun's
 * stdout/stderr, what is recorded, and how it exits.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { derunEnv, derunShell, randomBytes, runDerun, sha256, tempDir, text } from "../helpers/cli.ts";
import { channelBytes, onlySession, sessionIds, readSession } from "../helpers/session.ts";

describe("derun run in pipe mode", () => {
  test("4 MiB of random binary on stdout and 1 MiB on stderr arrive and are recorded byte-exact and apart", async () => {
    using state = tempDir();
    using data = tempDir("derun-data-");
    const out = randomBytes(4 << 20);
    const err = randomBytes(1 << 20);
    writeFileSync(join(data.path, "out"), out);
    writeFileSync(join(data.path, "err"), err);

    const result = await runDerun(["run", "--", "sh", "-c", "cat out; cat err >&2; cat out"], {
      stateRoot: state.path,
      cwd: data.path,
    });
    expect(result.exitCode).toBe(0);
    expect(sha256(result.stdout)).toBe(sha256(Buffer.concat([out, out])));
    expect(sha256(result.stderr)).toBe(sha256(err));

    const session = onlySession(state.path);
    expect(session.meta.transport_mode).toBe("pipe");
    expect(session.meta.tty_attached).toBe(false);
    expect(session.final).toMatchObject({ state: "exited", exit_code: 0 });
    expect(session.output.length).toBe(out.length * 2 + err.length);
    expect(session.index.reduce((n, r) => n + r.length, 0)).toBe(session.output.length);
    expect(sha256(channelBytes(session, "stdout"))).toBe(sha256(Buffer.concat([out, out])));
    expect(sha256(channelBytes(session, "stderr"))).toBe(sha256(err));
  });

  test.each([0, 1, 3, 42, 255])("exit status %d propagates and is recorded", async (code) => {
    using state = tempDir();
    const result = await runDerun(["run", "--", "sh", "-c", `exit ${code}`], { stateRoot: state.path });
    expect(result.exitCode).toBe(code);
    expect(onlySession(state.path).final).toMatchObject({ state: "exited", exit_code: code });
  });

  // SIGPIPE included: the runtime ignores it, so derun must restore its default action to die of it.
  test.each(["SIGTERM", "SIGINT", "SIGKILL", "SIGHUP", "SIGPIPE", "SIGUSR1"] as const)(
    "a child killed by %s kills derun by the same signal",
    async (signal) => {
      using state = tempDir();
      const result = await runDerun(["run", "--", "sh", "-c", `echo before; kill -${signal.slice(3)} $$`], { stateRoot: state.path });
      expect(result.signalCode).toBe(signal);
      expect(text(result.stdout)).toBe("before\n");
      expect(onlySession(state.path).final).toMatchObject({ state: "signaled", signal });
    },
  );

  // Signals Bun has no name for ("Unknown signal" from process.kill): derun dies of them by number.
  test.skipIf(process.platform !== "linux").each([
    ["SIGSTKFLT", 16],
    ["SIGPWR", 30],
  ] as const)("a child killed by %s kills derun by it too: the parent shell reports it as for the bare command", async (signal, signo) => {
    using state = tempDir();
    const viaShell = (prefix: string) =>
      Bun.spawnSync(["bash", "-c", `${prefix}sh -c 'kill -${signo} $$'; echo "status $?"`], {
        env: derunEnv(state.path),
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
    const bare = viaShell("");
    const derun = viaShell(`${derunShell()} run -- `);
    // bash names the death ("Stack fault", "Power failure") only for a signal, never for an exit 144.
    const label = signal === "SIGPWR" ? /\bPower failure\b/ : /\bStack fault\b/;
    expect(bare.stderr.toString()).toMatch(label);
    expect(derun.stderr.toString()).toMatch(label);
    expect(derun.stdout.toString()).toBe(bare.stdout.toString());
    expect(onlySession(state.path).final).toMatchObject({ state: "signaled", signal });
    using again = tempDir();
    const result = await runDerun(["run", "--", "sh", "-c", `kill -${signo} $$`], { stateRoot: again.path });
    expect(result.signalCode).toBe(signal);
  });

  test("a command that does not exist: exit 127, one line, session recorded as failed", async () => {
    using state = tempDir();
    const result = await runDerun(["run", "--", "derun-no-such-command-xyz", "arg"], { stateRoot: state.path });
    expect(result.exitCode).toBe(127);
    expect(result.stdout.length).toBe(0);
    expect(text(result.stderr)).toMatch(/^derun: .*derun-no-such-command-xyz.*\n$/);
    const session = onlySession(state.path);
    expect(session.final).toMatchObject({ state: "failed" });
    expect(String(session.final?.error)).toMatch(/derun-no-such-command-xyz/);
    expect(session.meta.command).toEqual(["derun-no-such-command-xyz", "arg"]);
  });

  test("a file that is not executable: exit 126, recorded as failed", async () => {
    using state = tempDir();
    using data = tempDir("derun-data-");
    const script = join(data.path, "not-executable.sh");
    writeFileSync(script, "#!/bin/sh\necho hi\n");
    chmodSync(script, 0o644);
    const result = await runDerun(["run", "--", script], { stateRoot: state.path });
    expect(result.exitCode).toBe(126);
    expect(text(result.stderr).split("\n").filter(Boolean)).toHaveLength(1);
    expect(onlySession(state.path).final).toMatchObject({ state: "failed" });
  });

  test("stdin is the child's own: data piped into derun reaches the command unchanged", async () => {
    using state = tempDir();
    const input = randomBytes(300_000);
    const result = await runDerun(["run", "--", "sh", "-c", "cat; test -t 0 || echo not-a-tty >&2"], {
      stateRoot: state.path,
      stdin: input,
    });
    expect(sha256(result.stdout)).toBe(sha256(input));
    expect(text(result.stderr)).toBe("not-a-tty\n");
  });

  test("a transport that cannot run here is one line, exit 1, and a failed session", async () => {
    using state = tempDir();
    const result = await runDerun(["run", "--transport", "windows-conpty", "--", "echo", "hi"], { stateRoot: state.path });
    expect(result.exitCode).toBe(1);
    expect(result.stdout.length).toBe(0);
    expect(text(result.stderr)).toMatch(
      /^derun: transport "windows-conpty" cannot run here \(linux; stdin not a terminal, stdout not a terminal, stderr not a terminal\)\n$/,
    );
    expect(onlySession(state.path).final).toMatchObject({ state: "failed" });
  });

  test("the child sees no terminal when derun has none", async () => {
    using state = tempDir();
    const result = await runDerun(["run", "--", "sh", "-c", "test -t 1 && echo tty || echo notty"], { stateRoot: state.path });
    expect(text(result.stdout)).toBe("notty\n");
  });

  test("derun writes nothing of its own to stdout or stderr", async () => {
    using state = tempDir();
    const result = await runDerun(["run", "--", "true"], { stateRoot: state.path });
    expect(result.exitCode).toBe(0);
    expect(result.stdout.length + result.stderr.length).toBe(0);
  });

  test("scenario 5: concurrent sessions are isolated", async () => {
    using state = tempDir();
    const runs = await Promise.all(
      [1, 2, 3, 4].map((n) =>
        runDerun(["run", "--session-id", `job-${n}`, "--", "sh", "-c", `for i in 1 2 3 4 5; do echo job${n}-$i; done; exit ${n}`], {
          stateRoot: state.path,
        }),
      ),
    );
    expect(runs.map((r) => r.exitCode)).toEqual([1, 2, 3, 4]);
    expect(sessionIds(state.path)).toEqual(["job-1", "job-2", "job-3", "job-4"]);
    for (const n of [1, 2, 3, 4]) {
      const session = readSession(state.path, `job-${n}`);
      const expected = [1, 2, 3, 4, 5].map((i) => `job${n}-${i}\n`).join("");
      expect(text(session.output)).toBe(expected);
      expect(session.meta.session_id).toBe(`job-${n}`);
      expect(session.final).toMatchObject({ state: "exited", exit_code: n });
    }
  });

  test("capture is a side channel: when the disk refuses, the command and its output go on, and final.json says why", async () => {
    using state = tempDir();
    // RLIMIT_FSIZE caps files derun writes (output.bin) at 64 KiB; SIGXFSZ ignored turns the
    // overflow into EFBIG for derun, which must only stop capturing. The child writes to a pipe,
    // which the limit does not touch.
    const total = 1 << 20;
    const result = await runDerun(["run", "--", "sh", "-c", `head -c ${total} /dev/zero | tr '\\0' 'x'; echo; echo done`], {
      stateRoot: state.path,
      wrap: ["sh", "-c", 'trap "" XFSZ; ulimit -f 64; exec "$@"', "sh"],
    });
    expect(result.exitCode).toBe(0);
    expect(result.stdout.length).toBe(total + "\ndone\n".length);
    expect(text(result.stdout.subarray(total))).toBe("\ndone\n");
    const session = onlySession(state.path);
    expect(session.final).toMatchObject({ state: "exited", exit_code: 0 });
    expect(String(session.final?.error)).toMatch(/capture failed/);
    expect(session.output.length).toBeLessThan(total);
    expect(session.index.reduce((n, r) => n + r.length, 0)).toBeLessThanOrEqual(session.output.length);
  });
});

describe("a state directory derun cannot write never changes the run", () => {
  test("when no session can be created, the command still runs, unrecorded, and derun says so once, after it", async () => {
    using dir = tempDir();
    const notADirectory = join(dir.path, "state-root-is-a-file");
    writeFileSync(notADirectory, "");
    const result = await runDerun(["run", "--", "sh", "-c", "echo out; echo err >&2; exit 5"], { stateRoot: notADirectory });
    expect(result.exitCode).toBe(5);
    expect(text(result.stdout)).toBe("out\n");
    expect(text(result.stderr)).toMatch(/^err\nderun: this run was not recorded: [^\n]+\n$/);
  });

  test("when final.json cannot be written, derun still exits with the command's status and says so once, after it", async () => {
    using state = tempDir();
    // The command itself puts a directory where final.json goes, so the rename onto it fails.
    const sabotage = `mkdir "${join(state.path, "sessions", "s1", "final.json")}"; echo done; exit 7`;
    const result = await runDerun(["run", "--session-id", "s1", "--", "sh", "-c", sabotage], { stateRoot: state.path });
    expect(result.exitCode).toBe(7);
    expect(text(result.stdout)).toBe("done\n");
    expect(text(result.stderr)).toMatch(/^derun: the end of session s1 was not recorded: [^\n]+\n$/);
    expect(text(readSession(state.path, "s1").output)).toBe("done\n");
  });
});
