/**
 * `2>&1`: when derun's stdout and stderr are one stream (one pipe, one open file, one terminal), the
 * command gets one stream for both, so what it writes to fd 1 and fd 2 stays in the order written,
 * on the way out and in the recording. Each case runs the same shell line through derun and bare and
 * compares; where derun's streams are two, they stay two.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { derunEnv, derunShell, REPO_ROOT, runDerun, shellQuote, tempDir, text } from "../helpers/cli.ts";
import { channelBytes, onlySession } from "../helpers/session.ts";
import { spawnInPty } from "../helpers/pty.ts";

const skip = process.platform === "win32";

/** Alternates fds 1 and 2, and says which of them are terminals. */
const ALTERNATE = `sh -c 'echo a; echo b >&2; echo c; echo d >&2; test -t 1 && echo tty1; test -t 2 && echo tty2 >&2; true'`;

/**
 * Runs `sh -c line` in `work` with `DERUN ` once as `derun run -- ` and once removed; what `seen`
 * (by default the line's stdout) says after each.
 */
async function viaShell(line: string, state: string, work: string, seen?: () => string): Promise<{ viaDerun: string; bare: string }> {
  const out: string[] = [];
  for (const prefix of [`${derunShell()} run -- `, ""]) {
    const proc = Bun.spawn(["sh", "-c", line.replaceAll("DERUN ", prefix)], {
      env: derunEnv(state),
      cwd: work,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(stderr).toBe("");
    out.push(seen ? seen() : stdout);
  }
  return { viaDerun: out[0]!, bare: out[1]! };
}

/** `derun cat --view raw` of the only session. */
async function rawView(state: string): Promise<string> {
  const { id } = onlySession(state);
  const cat = await runDerun(["cat", "--view", "raw", id], { stateRoot: state });
  expect(cat.exitCode).toBe(0);
  return text(cat.stdout);
}

describe.skipIf(skip)("derun run with stdout and stderr merged by the caller", () => {
  test("`2>&1 | cat`: one pipe for both, in the order written, on the way out and in the recording", async () => {
    using state = tempDir();
    using work = tempDir("derun-work-");
    const { viaDerun, bare } = await viaShell(`DERUN ${ALTERNATE} 2>&1 | cat`, state.path, work.path);
    expect(bare).toBe("a\nb\nc\nd\n");
    expect(viaDerun).toBe(bare);
    expect(await rawView(state.path)).toBe(bare);
    const session = onlySession(state.path);
    expect(session.meta).toMatchObject({ transport_mode: "pipe", merged_output: true });
    expect(text(channelBytes(session, "stdout"))).toBe(bare);
    expect(channelBytes(session, "stderr").length).toBe(0);
  });

  test("`>file 2>&1`: one stream for both, in the order written", async () => {
    using state = tempDir();
    using work = tempDir("derun-work-");
    const { viaDerun, bare } = await viaShell(`DERUN ${ALTERNATE} >log 2>&1`, state.path, work.path, () =>
      readFileSync(join(work.path, "log"), "utf8"),
    );
    expect(bare).toBe("a\nb\nc\nd\n");
    expect(viaDerun).toBe(bare);
    expect(await rawView(state.path)).toBe(bare);
  });

  test("`>log 2>log` (two opens of one file) and `2>&1` into a different pipe stay two streams", async () => {
    using state = tempDir();
    using work = tempDir("derun-work-");
    await viaShell(`DERUN ${ALTERNATE} >log 2>log`, state.path, work.path);
    const session = onlySession(state.path);
    expect(session.meta.merged_output).toBeUndefined();
    expect(text(channelBytes(session, "stdout"))).toBe("a\nc\n");
    expect(text(channelBytes(session, "stderr"))).toBe("b\nd\n");
  });

  test("both streams to /dev/null (two opens, or `2>&1` there) stay two channels: nobody sees an order there", async () => {
    using work = tempDir("derun-work-");
    const line = "printf hello; printf -- -world >&2; test -t 1 || echo no-tty1 >ttys; test -t 2 || echo no-tty2 >>ttys";
    for (const redirect of [">/dev/null 2>/dev/null", ">/dev/null 2>&1"]) {
      using state = tempDir();
      const { viaDerun, bare } = await viaShell(`DERUN sh -c ${shellQuote(line)} ${redirect}; cat ttys; rm ttys`, state.path, work.path);
      expect(bare).toBe("no-tty1\nno-tty2\n");
      expect(viaDerun).toBe(bare);
      const session = onlySession(state.path);
      expect(session.meta.merged_output).toBeUndefined();
      expect(text(channelBytes(session, "stdout"))).toBe("hello");
      expect(text(channelBytes(session, "stderr"))).toBe("-world");
    }
  });

  test("separate pipes (no 2>&1) stay two channels", async () => {
    using state = tempDir();
    const run = await runDerun(["run", "--", "sh", "-c", "echo a; echo b >&2"], { stateRoot: state.path });
    expect(text(run.stdout)).toBe("a\n");
    expect(text(run.stderr)).toBe("b\n");
    expect(onlySession(state.path).meta.merged_output).toBeUndefined();
  });

  test("on a terminal with stdin not one (`</dev/null`): one terminal for both, as without derun", async () => {
    using state = tempDir();
    const screens: string[] = [];
    for (const prefix of [`${derunShell()} run -- `, ""]) {
      const run = spawnInPty(["sh", "-c", `${prefix}${ALTERNATE} </dev/null`], {
        env: derunEnv(state.path, { TERM: "xterm-256color" }),
        cwd: REPO_ROOT,
        cols: 100,
        rows: 30,
      });
      const exit = await run.exited;
      expect(exit.exitCode).toBe(0);
      screens.push(text(run.output()));
    }
    expect(screens[1]).toBe("a\r\nb\r\nc\r\nd\r\ntty1\r\ntty2\r\n");
    expect(screens[0]).toBe(screens[1]!);
    const session = onlySession(state.path);
    expect(session.meta).toMatchObject({ transport_mode: "pipe", merged_output: true });
    // Recorded as the command wrote it: the CRLF on the screen is the real terminal's doing.
    expect(await rawView(state.path)).toBe("a\nb\nc\nd\ntty1\ntty2\n");
  });
});
