/**
 * `derun run` inside a real terminal: the test allocates a PTY (Bun's), runs derun on its slave side
 * as a shell would, and compares what the "screen" receives with the same command run without derun.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { derunArgv, derunEnv, derunShell, randomBytes, sha256, tempDir, text } from "../helpers/cli.ts";
import { onlySession } from "../helpers/session.ts";
import { spawnInPty } from "../helpers/pty.ts";

const skip = process.platform === "win32";

/** Run argv once through derun and once bare, each in its own fresh PTY of the same size. */
async function both(command: string[], drive: (run: ReturnType<typeof spawnInPty>) => Promise<void> = async () => {}, cwd?: string) {
  using state = tempDir();
  const env = derunEnv(state.path, { TERM: "xterm-256color" });
  const results = [];
  for (const argv of [[...derunArgv(), "run", "--", ...command], command]) {
    const run = spawnInPty(argv, { env, cols: 100, rows: 30, ...(cwd ? { cwd } : {}) });
    await drive(run);
    const exit = await run.exited;
    results.push({ ...exit, output: run.output() });
  }
  const [viaDerun, bare] = results as [(typeof results)[0], (typeof results)[0]];
  return { viaDerun, bare, session: onlySession(state.path) };
}

describe.skipIf(skip)("derun run in a terminal (posix-pty)", () => {
  test("8 MiB of random bytes reach the screen and output.bin byte-exact, as without derun", async () => {
    using data = tempDir("derun-data-");
    const bytes = randomBytes(8 << 20);
    writeFileSync(join(data.path, "blob"), bytes);
    // The child's side of the PTY goes raw first: a cooked PTY turns LF into CRLF, with or without derun.
    const { viaDerun, bare, session } = await both(["sh", "-c", "stty raw -echo; cat blob"], undefined, data.path);
    expect(viaDerun.exitCode).toBe(0);
    expect(sha256(bare.output)).toBe(sha256(bytes));
    expect(sha256(viaDerun.output)).toBe(sha256(bytes));
    expect(sha256(session.output)).toBe(sha256(bytes));
    expect(session.meta).toMatchObject({ transport_mode: "posix-pty", tty_attached: true });
    expect(session.index.every((r) => r.channel === "pty")).toBe(true);
  });

  test("the child sees a terminal of the same size on stdin, stdout and stderr", async () => {
    const probe = "for fd in 0 1 2; do test -t $fd && printf 'tty%s ' $fd; done; stty size";
    const { viaDerun, bare } = await both(["sh", "-c", probe]);
    expect(text(viaDerun.output)).toBe("tty0 tty1 tty2 30 100\r\n");
    expect(text(viaDerun.output)).toBe(text(bare.output));
  });

  test("with stdout piped away (derun run -- x | cat) the child sees exactly the same streams as without derun", async () => {
    using state = tempDir();
    const probe = "for fd in 0 1 2; do test -t \\$fd && printf 'tty%s ' \\$fd >&2; done; echo end >&2";
    const derun = derunShell();
    const outputs = [];
    for (const prefix of [`${derun} run -- `, ""]) {
      const run = spawnInPty(["sh", "-c", `${prefix}sh -c "${probe}" | cat`], { env: derunEnv(state.path) });
      await run.exited;
      outputs.push(text(run.output()));
    }
    expect(outputs[0]).toBe("tty0 tty2 end\r\n");
    expect(outputs[0]).toBe(outputs[1]);
    expect(onlySession(state.path).meta).toMatchObject({ transport_mode: "pipe", tty_attached: false });
  });

  test("a window resize reaches the child", async () => {
    const watcher = 'echo ready; while :; do [ "$(stty size)" = "40 120" ] && echo resized && exit 0; sleep 0.05; done';
    const { viaDerun, bare } = await both(["sh", "-c", watcher], async (run) => {
      await run.waitFor((out) => out.includes("ready"), "ready");
      run.resize(120, 40);
    });
    expect(text(viaDerun.output)).toBe("ready\r\nresized\r\n");
    expect(viaDerun.exitCode).toBe(0);
    expect(text(bare.output)).toBe(text(viaDerun.output));
  });

  test("the start size goes into meta.json, each resize into events.jsonl at its output offset, line counts into final.json", async () => {
    const watcher = 'echo ready; while :; do [ "$(stty size)" = "40 120" ] && echo resized && exit 0; sleep 0.05; done';
    const { viaDerun, session } = await both(["sh", "-c", watcher], async (run) => {
      await run.waitFor((out) => out.includes("ready"), "ready");
      run.resize(120, 40);
    });
    expect(viaDerun.exitCode).toBe(0);
    expect(session.meta).toMatchObject({ cols: 100, rows: 30 });
    expect(session.events).toEqual([{ type: "resize", offset: "ready\r\n".length, cols: 120, rows: 40, timestamp: expect.any(String) }]);
    expect(session.final).toMatchObject({ output_lines: { pty: 2 } });
  });

  test("keystrokes reach the child unchanged (line editing happens in the child's own terminal)", async () => {
    // Typed at once: the keys may come before derun has taken the terminal over (then they are typed ahead) or after.
    const { viaDerun, bare } = await both(["sh", "-c", "read line; printf '<%s>' \"$line\""], async (run) => {
      run.type("helo\x7flo wor\x17world\r");
    });
    expect(text(viaDerun.output)).toContain("<hello world>");
    expect(text(viaDerun.output)).toBe(text(bare.output));
  });

  test("scenario 2: Ctrl-C ends a foreground child exactly as without derun", async () => {
    // `exec`: a Ctrl-C that came while dash was forking `sleep` was lost even bare, without derun
    // (3 bare runs in 20 under load), and that bare run is the reference here.
    const { viaDerun, bare, session } = await both(["sh", "-c", "echo ready; exec sleep 30"], async (run) => {
      await run.waitFor((out) => out.includes("ready"), "ready");
      run.type("\x03");
    });
    expect(bare.signalCode).toBe("SIGINT");
    expect(viaDerun.signalCode).toBe(bare.signalCode);
    expect(viaDerun.exitCode).toBe(bare.exitCode);
    expect(session.final).toMatchObject({ state: "signaled", signal: "SIGINT" });
  });

  test("scenario 2: Ctrl-C caught by the child gives the child's own exit status", async () => {
    const program = 'trap "echo caught; exit 7" INT; echo ready; while :; do sleep 0.1; done';
    const { viaDerun, bare } = await both(["sh", "-c", program], async (run) => {
      await run.waitFor((out) => out.includes("ready"), "ready");
      run.type("\x03");
    });
    expect(bare.exitCode).toBe(7);
    expect(viaDerun.exitCode).toBe(7);
    expect(text(viaDerun.output)).toBe(text(bare.output));
  });

  test("SIGTERM sent to derun reaches the child, and derun dies of it; a background grandchild does not hold derun", async () => {
    using state = tempDir();
    const run = spawnInPty([...derunArgv(), "run", "--", "sh", "-c", "sleep 30 & echo ready; wait"], {
      env: derunEnv(state.path),
    });
    await run.waitFor((out) => out.includes("ready"), "ready");
    run.proc.kill("SIGTERM");
    const exit = await run.exited;
    expect(exit.signalCode).toBe("SIGTERM");
    expect(onlySession(state.path).final).toMatchObject({ state: "signaled", signal: "SIGTERM" });
  });

  test("SIGUSR1 sent to derun is forwarded too: derun dies of it like its child, never leaving the terminal raw", async () => {
    using state = tempDir();
    const derun = derunShell();
    // The outer shell starts derun in the background (stdin given back from /dev/tty, so derun has a
    // terminal on all three fds and goes raw), signals it once the child is up, then checks the
    // terminal is back to what it was.
    const script =
      `stty -a > before; ${derun} run -- sh -c 'echo ready > ready; sleep 30' < /dev/tty & pid=$!; while [ ! -s ready ` +
      `]; do sleep 0.05; done; kill -USR1 $pid; wait $pid; echo "status=$?"; stty -a | cmp -s - before && echo restored`;
    using data = tempDir("derun-data-");
    const run = spawnInPty(["sh", "-c", script], { env: derunEnv(state.path), cwd: data.path });
    await run.exited;
    expect(text(run.output())).toContain("status=138"); // 128 + SIGUSR1: derun died of SIGUSR1
    expect(text(run.output())).toContain("restored");
    const session = onlySession(state.path);
    expect(session.meta).toMatchObject({ transport_mode: "posix-pty" });
    expect(session.final).toMatchObject({ state: "signaled", signal: "SIGUSR1" });
  });

  test("the user's terminal settings are restored after a normal exit and after a signal death", async () => {
    using state = tempDir();
    const derun = derunShell();
    const script =
      `stty -a > before; ${derun} run -- true; stty -a > after1; ${derun} run -- sh -c 'kill -TERM $$'; stty -a > ` +
      `after2; cat before after1 after2 | sort | uniq -c | awk '{print $1}' | sort -u`;
    using data = tempDir("derun-data-");
    const run = spawnInPty(["sh", "-c", script], { env: derunEnv(state.path), cwd: data.path });
    const exit = await run.exited;
    expect(exit.exitCode).toBe(0);
    // Every line of `stty -a` occurs exactly 3 times: the three snapshots are identical. (The shell
    // itself reports the second derun's death as "Terminated" first.)
    const counts = text(run.output())
      .split(/\r?\n/)
      .filter((line) => /^\d+$/.test(line));
    expect(counts).toEqual(["3"]);
  });

  test("pipe transport in a terminal: Ctrl-C reaches the child once, as without derun", async () => {
    // The child shares derun's process group, the terminal's foreground: the kernel signals both,
    // and derun must not forward a second copy.
    const counter = [
      "python3",
      "-c",
      [
        "import signal, sys, time",
        "hits = []",
        "signal.signal(signal.SIGINT, lambda *_: hits.append(1))",
        "print('ready', flush=True)",
        "end = time.time() + 1.5",
        "while time.time() < end: time.sleep(0.01)",
        "print('count=%d' % len(hits), flush=True)",
      ].join("\n"),
    ];
    using state = tempDir();
    const env = derunEnv(state.path);
    const counts = [];
    for (const argv of [[...derunArgv(), "run", "--transport", "pipe", "--", ...counter], counter]) {
      const run = spawnInPty(argv, { env });
      await run.waitFor((out) => out.includes("ready"), "ready");
      run.type("\x03");
      const exit = await run.exited;
      expect(exit.exitCode).toBe(0);
      counts.push(text(run.output()).match(/count=(\d+)/)?.[1]);
    }
    expect(counts).toEqual(["1", "1"]);
  });

  test("exit codes propagate from a PTY child", async () => {
    const { viaDerun, bare } = await both(["sh", "-c", "exit 42"]);
    expect(bare.exitCode).toBe(42);
    expect(viaDerun.exitCode).toBe(42);
  });
});
