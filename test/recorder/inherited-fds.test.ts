/**
 * Descriptors above 2 that derun's caller left open (process substitution, `3>&1`, `exec 4<file`)
 * reach the command at the same numbers, as without derun: each case runs the bare command and
 * derun in the same situation and compares. Pipe mode, a PTY the test allocates (the command as
 * the PTY's session leader), and a job-control shell in tmux (the command as the job of derun's
 * leader).
 */
import { describe, expect, test } from "bun:test";
import { closeSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT, derunArgv, derunEnv, derunShell, shellQuote, tempDir, text } from "../helpers/cli.ts";
import { spawnInPty } from "../helpers/pty.ts";
import { onlySession } from "../helpers/session.ts";
import { hasTmux, openShellPane } from "../helpers/tmux.ts";

const TIMEOUT = 60_000;
const linux = process.platform === "linux";
/**
 * Writes to fd 3, reads fd 5 (a process substitution), then lists the fds the command's shell has,
 * each line marked with `$M` (the `ls` is its own process: its listing fd is not in the list).
 * fd 3 first: it bypasses derun, so a line written there after one to fd 1 may overtake it. Its
 * line ends in CR LF: in tmux fd 3 is the outer terminal, which derun holds raw, as `script` does
 * (docs/known-gaps.md). The list goes to a file (`$F`), not through a pipe: for `$(ls ...)` the
 * shell opens a pipe, forks, and only then closes its write end, so a loaded machine's `ls` could
 * list that end too (an extra fd 6, seen once in CI); `ls > $F` is redirected in the shell before
 * it forks (the shell keeps its own stdout at 10 or above meanwhile, bare as under derun).
 */
const PROBE = `printf '%s three\\r\\n' "$M" >&3; sed "s/^/$M /" /dev/fd/5; ls /proc/$$/fd > "$F"; echo "$M fds" $(sort -n "$F")`;
/** The bash line: fd 5 a process substitution, fd 3 the command's stdout, fd 7 a file; the list in `list`. */
const line = (mark: string, prefix: string, list: string) =>
  `exec 7</dev/null; M=${mark} F=${shellQuote(list)} ${prefix}sh -c ${shellQuote(PROBE)} 3>&1 5< <(echo from-5)`;
/** What the bare command shows, with the fds the line opened. */
const BARE = /^bare three\r*\nbare from-5\r?\nbare fds 0 1 2 3 (\d+ )*5 (\d+ )*7\b/;

/**
 * A process that lists its descriptors as derun's first line does, then closes fd 5 (as a thread of
 * the runtime closes a file it had open for a moment) and opens a file that takes the number: what
 * is passed on now, and whether closing the caller's descriptors left that file open.
 */
const REUSED = (module: string, file: string) => `
import { closeSync, fstatSync, openSync } from "node:fs";
import { closeInheritedFds, inheritedFds, takeInheritedFds } from ${JSON.stringify(module)};
takeInheritedFds();
const before = inheritedFds();
closeSync(5);
const reused = openSync(${JSON.stringify(file)}, "r");
const after = inheritedFds();
closeInheritedFds();
let open = true;
try { fstatSync(reused); } catch { open = false; }
console.log(JSON.stringify({ before, reused, after, open }));
`;

describe.skipIf(!linux)("descriptors the caller left open reach the command", () => {
  test("a listed number whose file changed since (closed, taken by another) is neither passed on nor closed", async () => {
    using dir = tempDir("derun-fds-");
    const script = join(dir.path, "reused.ts");
    const other = join(dir.path, "other");
    writeFileSync(other, "a file of the process's own\n");
    writeFileSync(script, REUSED(join(REPO_ROOT, "src/recorder/inherited-fds.ts"), other));
    const caller = openSync(script, "r");
    try {
      // The caller leaves fds 5 and 6 open (Bun's spawn puts them at those numbers).
      const result = Bun.spawnSync([process.execPath, script], {
        stdio: ["ignore", "pipe", "inherit", "ignore", "ignore", caller, caller],
      });
      const seen = JSON.parse(result.stdout.toString()) as { before: number[]; reused: number; after: number[]; open: boolean };
      expect(seen.before).toEqual(expect.arrayContaining([5, 6]));
      expect(seen.reused).toBe(5);
      expect(seen.after).not.toContain(5);
      expect(seen.after).toContain(6);
      expect(seen.open).toBe(true);
    } finally {
      closeSync(caller);
    }
  });

  test("pipe mode: process substitution and 3>&1 as bare", async () => {
    using state = tempDir();
    using lists = tempDir("derun-fds-");
    const run = (prefix: string) => {
      const result = Bun.spawnSync(["bash", "-c", line("bare", prefix, join(lists.path, "fds"))], {
        env: derunEnv(state.path),
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
      return { out: result.stdout.toString(), err: result.stderr.toString(), code: result.exitCode };
    };
    const bare = run("");
    expect(bare.out).toMatch(BARE);
    expect(run(`${derunShell()} run -- `)).toEqual(bare);
    expect(onlySession(state.path).meta.transport_mode).toBe("pipe");
  });

  test("`derun run -- cat <(echo hi)`: cat reads /dev/fd/63 as bare", async () => {
    using state = tempDir();
    const run = (prefix: string) =>
      Bun.spawnSync(["bash", "-c", `${prefix}cat <(echo hi)`], {
        env: derunEnv(state.path),
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
    const bare = run("");
    const derun = run(`${derunShell()} run -- `);
    expect(bare.stdout.toString()).toBe("hi\n");
    expect([derun.exitCode, derun.stdout.toString(), derun.stderr.toString()]).toEqual([0, "hi\n", ""]);
  });

  test(
    "a PTY the test allocates (no job control): the same fds as bare",
    async () => {
      using state = tempDir();
      using lists = tempDir("derun-fds-");
      const inPty = async (prefix: string) => {
        const run = spawnInPty(["bash", "-c", line("bare", prefix, join(lists.path, "fds"))], { env: derunEnv(state.path) });
        await run.exited;
        // The outer terminal adds a CR to fd 3's line bare (cooked), not under derun (raw, as under script).
        return text(run.output()).replaceAll(/\r+\n/g, "\n");
      };
      const bare = await inPty("");
      expect(bare).toMatch(BARE);
      expect(await inPty(`${derunShell()} run -- `)).toBe(bare);
      expect(onlySession(state.path).meta.transport_mode).toBe("posix-pty");
    },
    TIMEOUT,
  );

  test.skipIf(!hasTmux)(
    "a job-control shell (tmux): the job of derun's leader gets the same fds as the bare job",
    async () => {
      using state = tempDir();
      using dir = tempDir("derun-fds-");
      await using pane = await openShellPane(dir.path, derunEnv(state.path), derunArgv());
      pane.run(line("bare", "", join(dir.path, ".fds")));
      await pane.prompt();
      pane.run(line("led", "derun run -- ", join(dir.path, ".fds")));
      const screen = await pane.settled((s) => /^led fds/m.test(s) && s.endsWith("\n$"), "the led command's fds");
      const lines = (mark: string) =>
        screen
          .split("\n")
          .filter((l) => l.startsWith(`${mark} `))
          .map((l) => l.slice(mark.length + 1));
      expect(lines("bare").join("\n")).toMatch(/^three\nfrom-5\nfds 0 1 2 3 (\d+ )*5 (\d+ )*7\b/);
      expect(lines("led")).toEqual(lines("bare"));
      expect(onlySession(state.path).meta.transport_mode).toBe("posix-pty");
    },
    TIMEOUT,
  );
});
