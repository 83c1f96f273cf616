/**
 * `eval "$(derun shell-init <shell> --auto)"` last in a user's startup file (a private HOME): an
 * interactive login on a terminal is recorded as one `derun shell` session (not two: the shell inside
 * does not start derun again) and ends with the status of the recorded shell; a script, `bash -c`
 * as sshd runs it, a dumb terminal, DERUN_AUTO=0 and a derun that cannot start behave exactly as
 * without the line.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ShellKind } from "../../src/shell/init.ts";
import { derunArgv, shellQuote, tempDir } from "../helpers/cli.ts";
import { spawnInPty } from "../helpers/pty.ts";
import { SHELLS } from "../helpers/shells.ts";

const PROMPT = "auto-test> ";
const AUTO_LINE: Record<ShellKind, string> = {
  bash: 'eval "$(derun shell-init bash --auto)"',
  zsh: 'eval "$(derun shell-init zsh --auto)"',
  fish: "derun shell-init fish --auto | source",
};

interface Home extends Disposable {
  readonly path: string;
  readonly state: string;
  env(extra?: Record<string, string>): Record<string, string>;
  sessions(): string[];
}

/** A HOME whose startup file sets a prompt, logs that it was read, and (when `withLine`) ends with the auto line; `derun` on PATH. */
function home(kind: ShellKind, withLine: boolean, derun = `exec ${derunArgv().map(shellQuote).join(" ")} "$@"`): Home {
  const dir = tempDir("derun-auto-home-");
  const state = join(dir.path, ".state");
  const bin = join(dir.path, ".bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "derun"), `#!/bin/sh\n${derun}\n`);
  chmodSync(join(bin, "derun"), 0o755);
  const line = withLine ? `${AUTO_LINE[kind]}\n` : "";
  if (kind === "bash") {
    // A login's /etc/profile may set PATH anew: the user's startup file puts derun on it, as users do.
    writeFileSync(join(dir.path, ".bashrc"), `PATH="$HOME/.bin:$PATH"\nPS1='${PROMPT}'\necho read >> ~/rc.log\n${line}`);
    writeFileSync(join(dir.path, ".bash_profile"), ". ~/.bashrc\n");
  } else if (kind === "zsh")
    writeFileSync(join(dir.path, ".zshrc"), `PATH="$HOME/.bin:$PATH"\nPS1='${PROMPT}'\necho read >> ~/rc.log\n${line}`);
  else {
    mkdirSync(join(dir.path, ".config/fish"), { recursive: true });
    mkdirSync(join(dir.path, ".local/share/fish/generated_completions"), { recursive: true });
    writeFileSync(
      join(dir.path, ".config/fish/config.fish"),
      `set -gx PATH $HOME/.bin $PATH\nfunction fish_prompt; printf '${PROMPT}'; end\nfunction fish_greeting; end\necho read >> ` +
        `~/rc.log\n${line}`,
    );
  }
  return {
    path: dir.path,
    state,
    env: (extra = {}) => ({
      HOME: dir.path,
      PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}`,
      TERM: "xterm-256color",
      LANG: "C.UTF-8",
      USER: "derun",
      SHELL: Bun.which(kind)!,
      DERUN_STATE_ROOT: state,
      ...extra,
    }),
    sessions: () => (existsSync(join(state, "sessions")) ? readdirSync(join(state, "sessions")) : []),
    [Symbol.dispose]: () => dir[Symbol.dispose](),
  };
}

/** An interactive login on a PTY: a command typed, its output seen, then `exit 3`. */
async function login(kind: ShellKind, h: Home, env: Record<string, string> = {}) {
  const run = spawnInPty([kind, "-l"], { env: h.env(env), cwd: h.path, cols: 100, rows: 30 });
  await run.waitFor((out) => out.includes(PROMPT), "the prompt");
  run.type("printf '%s-%s\\n' ab cd\r");
  await run.waitFor((out) => out.includes("ab-cd"), "the command's output");
  run.type("exit 3\r");
  const exit = await run.exited;
  return { exit, output: new TextDecoder().decode(run.output()) };
}

describe.each(SHELLS)("%s with the auto line", (kind) => {
  test("a login is recorded once, as a derun shell session, and ends with the recorded shell's status", async () => {
    using h = home(kind, true);
    const { exit } = await login(kind, h);
    expect(exit.exitCode).toBe(3);
    expect(h.sessions()).toHaveLength(1);
    const id = h.sessions()[0]!;
    const meta = JSON.parse(readFileSync(join(h.state, "sessions", id, "meta.json"), "utf8"));
    expect(meta).toMatchObject({ records_commands: true, tty_attached: true });
    const commands = readFileSync(join(h.state, "sessions", id, "commands.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(commands[0]).toMatchObject({ number: 1, command_line: "printf '%s-%s\\n' ab cd", exit_code: 0 });
    // Both shells read the startup file: the one that started derun, and the one inside.
    expect(readFileSync(join(h.path, "rc.log"), "utf8")).toBe("read\nread\n");
  });

  test("SHLVL in the recorded shell is the terminal's shell's without the line", async () => {
    const shlvl: string[] = [];
    for (const withLine of [false, true]) {
      using h = home(kind, withLine);
      const run = spawnInPty([kind, "-l"], { env: h.env({ SHLVL: "0" }), cwd: h.path, cols: 100, rows: 30 });
      await run.waitFor((out) => out.includes(PROMPT), "the prompt");
      run.type("echo level-$SHLVL-end\r");
      await run.waitFor((out) => /level-\d+-end/.test(out), "the level");
      shlvl.push(/level-(\d+)-end/.exec(new TextDecoder().decode(run.output()))![1]!);
      run.type("exit\r");
      await run.exited;
      if (withLine) expect(h.sessions()).toHaveLength(1);
    }
    expect(shlvl[0]).toBe("1");
    expect(shlvl[1]).toBe(shlvl[0]);
  });

  test.each(["HUP", "KILL"])("the recorded shell sent SIG%s: the terminal's shell ends as it ends without the line", async (signal) => {
    const ends: unknown[] = [];
    for (const withLine of [false, true]) {
      using h = home(kind, withLine);
      const run = spawnInPty([kind, "-l"], { env: h.env(), cwd: h.path, cols: 100, rows: 30 });
      await run.waitFor((out) => out.includes(PROMPT), "the prompt");
      run.type(`kill -${signal} ${kind === "fish" ? "$fish_pid" : "$$"}\r`);
      ends.push(await run.exited);
      if (withLine) expect(h.sessions()).toHaveLength(1);
    }
    // bash dies of SIGHUP; zsh and fish exit (1 and 129 here). Each dies of SIGKILL.
    if (kind === "bash" || signal === "KILL") expect(ends[0]).toEqual({ exitCode: null, signalCode: `SIG${signal}` });
    expect(ends[1]).toEqual(ends[0]);
  });

  test("a dumb terminal, DERUN_AUTO=0, and a derun that cannot start: the shell as without the line", async () => {
    for (const [what, env, derun] of [
      ["TERM=dumb", { TERM: "dumb" }, undefined],
      ["DERUN_AUTO=0", { DERUN_AUTO: "0" }, undefined],
      [
        "derun failing",
        {},
        `case "$1" in shell) echo 'derun: cannot start' >&2; exit 70;; esac\nexec ${derunArgv().map(shellQuote).join(" ")} "$@"`,
      ],
    ] as const) {
      using h = home(kind, true, derun);
      const { exit } = await login(kind, h, env);
      expect([what, exit.exitCode, h.sessions()]).toEqual([what, 3, []]);
    }
  });
});

describe.skipIf(!SHELLS.includes("bash"))("bash scripts and commands with the auto line", () => {
  /** stdout, stderr and status of `argv` (stdin: `input`) in a HOME with and without the line; and the sessions recorded. */
  async function both(argv: string[], input: string, env: Record<string, string> = {}) {
    const results = [];
    for (const withLine of [false, true]) {
      using h = home("bash", withLine);
      writeFileSync(join(h.path, "script.sh"), 'echo "args: $*"; echo "from stdin: $(cat)"; echo err >&2; exit 4\n');
      const proc = Bun.spawn(argv, {
        env: h.env(env),
        cwd: h.path,
        stdin: new TextEncoder().encode(input),
        stdout: "pipe",
        stderr: "pipe",
      });
      const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      results.push({ stdout, stderr, code, sessions: h.sessions(), rc: existsSync(join(h.path, "rc.log")) });
    }
    return results;
  }

  test("bash script.sh: the same bytes, status and stdin; nothing recorded", async () => {
    const [without, withLine] = await both(["bash", "script.sh", "a", "b"], "piped data");
    expect(without).toEqual({ stdout: "args: a b\nfrom stdin: piped data\n", stderr: "err\n", code: 4, sessions: [], rc: false });
    expect(withLine).toEqual(without);
  });

  test("bash -c as sshd runs it (ssh host cmd, which reads ~/.bashrc): the same bytes, status and stdin; nothing recorded", async () => {
    const [without, withLine] = await both(["bash", "-c", 'echo "from stdin: $(cat)"; echo err >&2; exit 5'], "piped data", {
      SSH_CLIENT: "192.0.2.1 50000 22",
      SHLVL: "0",
    });
    expect(without).toMatchObject({ stdout: "from stdin: piped data\n", stderr: "err\n", code: 5, sessions: [] });
    expect(withLine).toEqual(without);
  });
});
