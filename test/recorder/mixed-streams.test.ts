/**
 * `derun run` in a terminal where only some of its standard streams are the terminal (a pipe or a
 * file on the others), so the `pipe` transport runs the child. The test allocates a real PTY, runs a
 * shell line on it once through derun and once bare, and compares what each stream of the child saw
 * (terminal or not, and its size), what reached the "screen" and the files, and what was recorded.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { derunEnv, derunShell, randomBytes, sha256, tempDir, text } from "../helpers/cli.ts";
import { channelBytes, onlySession } from "../helpers/session.ts";
import { spawnInPty, type PtyRun } from "../helpers/pty.ts";

const skip = process.platform === "win32";

/**
 * Reports, on stdout and on stderr, which of fds 0-2 are terminals and their sizes. (Copies of
 * fds 1 and 2 because inside `$(...)` fd 1 is the substitution's pipe.)
 */
const PROBE = `exec 3>&1 4>&2
r=""
test -t 0 && r="$r tty0=$(stty size)"
test -t 1 && r="$r tty1=$(stty size <&3)"
test -t 2 && r="$r tty2=$(stty size <&4)"
echo "out:$r"; echo "err:$r" >&2
`;

interface Seen {
  /** Everything that reached the terminal, as text. */
  readonly screen: string;
  /** The same, as bytes. */
  readonly screenHash: string;
  /** The content of `err` in the working directory after the run, when the line wrote one. */
  readonly errFile: string | undefined;
  readonly exitCode: number | null;
}

/**
 * Runs the shell `line` in a fresh 100x30 PTY twice: with `DERUN ` replaced by `derun run <flags> -- `,
 * then with it removed (the same command bare). Both run in a directory holding `probe.sh`.
 */
async function withAndWithout(
  line: string,
  { drive = async () => {}, flags = "" }: { drive?: (run: PtyRun) => Promise<void>; flags?: string } = {},
) {
  using state = tempDir();
  using work = tempDir("derun-work-");
  writeFileSync(join(work.path, "probe.sh"), PROBE);
  const derun = derunShell();
  const seen: Seen[] = [];
  for (const prefix of [`${derun} run ${flags} -- `, ""]) {
    const errPath = join(work.path, "err");
    rmSync(errPath, { force: true });
    const run = spawnInPty(["sh", "-c", line.replaceAll("DERUN ", prefix)], {
      env: derunEnv(state.path, { TERM: "xterm-256color" }),
      cwd: work.path,
      cols: 100,
      rows: 30,
    });
    await drive(run);
    const exit = await run.exited;
    seen.push({
      screen: text(run.output()),
      screenHash: sha256(run.output()),
      errFile: existsSync(errPath) ? readFileSync(errPath, "utf8") : undefined,
      exitCode: exit.exitCode,
    });
  }
  const [viaDerun, bare] = seen as [Seen, Seen];
  return { viaDerun, bare, session: onlySession(state.path), work: work.path };
}

/**
 * Lines on the screen, sorted: the child's stdout and stderr are separate streams in both runs,
 * so which of two lines written back to back on different fds lands first is not defined.
 */
const lines = (screen: string) => screen.split("\r\n").sort();

describe.skipIf(skip)("derun run with some of its streams on a terminal (pipe transport)", () => {
  test("stdin piped, stdout and stderr terminals: the child sees terminals of the real size on fds 1 and 2", async () => {
    const { viaDerun, bare, session } = await withAndWithout("echo x | DERUN sh probe.sh");
    const report = " tty1=30 100 tty2=30 100";
    // One terminal for both, as without derun: the lines in the order written.
    expect(bare.screen).toBe(`out:${report}\r\nerr:${report}\r\n`);
    expect(viaDerun.screen).toBe(bare.screen);
    // Recorded as the child wrote it: LF only, the CRLF on the screen is the real terminal's doing.
    expect(text(channelBytes(session, "stdout"))).toBe(`out:${report}\nerr:${report}\n`);
    expect(session.meta).toMatchObject({ transport_mode: "pipe", tty_attached: false, merged_output: true });
  });

  test("stdin piped, stdout a terminal, stderr a file: only fd 1 is a terminal, stderr lands in the file", async () => {
    const { viaDerun, bare, session } = await withAndWithout("echo x | DERUN sh probe.sh 2>err");
    expect(bare.screen).toBe("out: tty1=30 100\r\n");
    expect(bare.errFile).toBe("err: tty1=30 100\n");
    expect(viaDerun).toEqual(bare);
    expect(text(channelBytes(session, "stderr"))).toBe("err: tty1=30 100\n");
  });

  test("stdin a terminal, stdout a terminal, stderr a file (--transport pipe): as without derun", async () => {
    const { viaDerun, bare } = await withAndWithout("DERUN sh probe.sh 2>err", { flags: "--transport pipe" });
    expect(bare.screen).toBe("out: tty0=30 100 tty1=30 100\r\n");
    expect(bare.errFile).toBe("err: tty0=30 100 tty1=30 100\n");
    expect(viaDerun).toEqual(bare);
  });

  // With stdin and stdout terminals but stderr a file, derun must not choose one PTY for all three
  // fds (stderr would reach the screen): it chooses pipe, which gives each stream what derun has.
  test("stdin a terminal, stdout a terminal, stderr a file (transport chosen by derun): as without derun", async () => {
    const { viaDerun, bare } = await withAndWithout("DERUN sh probe.sh 2>err");
    expect(bare.errFile).toBe("err: tty0=30 100 tty1=30 100\n");
    expect(viaDerun).toEqual(bare);
  });

  test("stdout piped away, stderr a terminal: fd 2 is a terminal of the real size", async () => {
    const { viaDerun, bare } = await withAndWithout("DERUN sh probe.sh | cat");
    const report = " tty0=30 100 tty2=30 100";
    expect(lines(bare.screen)).toEqual(["", `err:${report}`, `out:${report}`]);
    expect(lines(viaDerun.screen)).toEqual(lines(bare.screen));
  });

  test("echo x | grep --color=auto x colours its match, as without derun", async () => {
    const { viaDerun, bare, session } = await withAndWithout("echo x | DERUN grep --color=auto x");
    expect(bare.screen).toContain("\x1b[");
    expect(viaDerun.screen).toBe(bare.screen);
    expect(text(channelBytes(session, "stdout"))).toBe(bare.screen.replace("\r\n", "\n"));
  });

  test("1 MiB of random bytes through a stdout terminal: recorded byte-exact, the screen as without derun", async () => {
    using data = tempDir("derun-data-");
    const bytes = randomBytes(1 << 20);
    writeFileSync(join(data.path, "blob"), bytes);
    const { viaDerun, bare, session } = await withAndWithout(`echo x | DERUN cat '${join(data.path, "blob")}'`);
    expect(sha256(channelBytes(session, "stdout"))).toBe(sha256(bytes));
    expect(viaDerun.exitCode).toBe(0);
    expect(viaDerun.screenHash).toBe(bare.screenHash);
  });

  test("a window resize reaches the child's stdout terminal (stdin piped)", async () => {
    const watcher = `sh -c 'exec 3>&1; echo ready; while [ "$(stty size <&3)" != "40 120" ]; do sleep 0.05; done; echo resized'`;
    const { viaDerun, bare } = await withAndWithout(`echo x | DERUN ${watcher}`, {
      drive: async (run) => {
        await run.waitFor((out) => out.includes("ready"), "ready");
        run.resize(120, 40);
      },
    });
    expect(bare.screen).toBe("ready\r\nresized\r\n");
    expect(viaDerun).toEqual(bare);
  });

  test("a window resize reaches the child's stderr terminal (stdout piped away)", async () => {
    const watcher = `sh -c 'exec 4>&2; echo ready >&2; while [ "$(stty size <&4)" != "40 120" ]; do sleep 0.05; done; echo resized >&2'`;
    const { viaDerun, bare } = await withAndWithout(`DERUN ${watcher} | cat`, {
      drive: async (run) => {
        await run.waitFor((out) => out.includes("ready"), "ready");
        run.resize(120, 40);
      },
    });
    expect(bare.screen).toBe("ready\r\nresized\r\n");
    expect(viaDerun).toEqual(bare);
  });

  test("a child reading its stdout size in its SIGWINCH handler ends up with the new size (stdin piped)", async () => {
    // The real terminal signals the child directly (it shares derun's process group), possibly
    // before derun has resized the child's stdout terminal; the last size it reads must be the new one.
    const program = [
      "import os, signal, time",
      "seen = []",
      "signal.signal(signal.SIGWINCH, lambda *_: seen.append(os.get_terminal_size(1)))",
      "print('ready', flush=True)",
      "end = time.time() + 1.5",
      "while time.time() < end: time.sleep(0.01)",
      "print('last=%dx%d' % (seen[-1].columns, seen[-1].lines) if seen else 'none', flush=True)",
    ].join("\n");
    const { viaDerun, bare } = await withAndWithout(`echo x | DERUN python3 -c "${program}"`, {
      drive: async (run) => {
        await run.waitFor((out) => out.includes("ready"), "ready");
        run.resize(120, 40);
      },
    });
    expect(bare.screen).toBe("ready\r\nlast=120x40\r\n");
    expect(viaDerun.screen).toBe(bare.screen);
  });

  test("a background grandchild holding the stdout terminal does not hold derun", async () => {
    using state = tempDir();
    const derun = derunShell();
    const line = `echo x | ${derun} run -- sh -c 'sleep 30 & echo "started $!"'; echo "derun=$?"`;
    const run = spawnInPty(["sh", "-c", line], { env: derunEnv(state.path) });
    const exit = await run.exited;
    const grandchild = Number(text(run.output()).match(/started (\d+)/)?.[1]);
    expect(grandchild).toBeGreaterThan(0);
    process.kill(grandchild, "SIGKILL"); // still running: it was not waited for
    expect(exit.exitCode).toBe(0);
    expect(text(run.output())).toBe(`started ${grandchild}\r\nderun=0\r\n`);
    expect(onlySession(state.path).final).toMatchObject({ state: "exited", exit_code: 0 });
  }, 20_000);
});
