/**
 * Real interactive shells on a real PTY for the shell-marks tests: a private HOME with the user's
 * own startup files (a prompt of their own and a hook of their own), started as `derun shell` will
 * start them (prepareShellLaunch) or plainly, typed at by keys, waited on by what they print.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Terminal } from "@xterm/headless";
import { shellInit, type ShellKind } from "../../src/shell/init.ts";
import { prepareShellLaunch, type ShellLaunch } from "../../src/shell/launch.ts";
import { derunArgv, tempDir } from "./cli.ts";
import { spawnInPty, type PtyRun } from "./pty.ts";

export const PROMPT = "derun-test> ";
export const COLS = 100;
export const ROWS = 30;
export const SHELLS = (["bash", "zsh", "fish"] as const).filter((kind) => Bun.which(kind) !== null);

/** The user's startup file for `kind`: their prompt, and a hook that logs each status it sees. */
function userStartup(kind: ShellKind, extra: string): [path: string, text: string] {
  if (kind === "bash") return [".bashrc", `PS1='${PROMPT}'\nPROMPT_COMMAND='echo "hook $?" >> ~/hooks.log'\n${extra}`];
  if (kind === "zsh") return [".zshrc", `PS1='${PROMPT}'\nprecmd() { echo "hook $?" >> ~/hooks.log }\n${extra}`];
  return [
    ".config/fish/config.fish",
    `function fish_prompt; printf '${PROMPT}'; end\nfunction fish_greeting; end\n` +
      `function user_hook --on-event fish_postexec; echo "hook $status" >> ~/hooks.log; end\n${extra}`,
  ];
}

export interface ShellHome extends Disposable {
  readonly path: string;
  /** What the user's hook logged, one status per line. */
  hooks(): string[];
}

/**
 * A HOME for `kind`; `sourceSnippet` makes the user's startup file source the snippet that many
 * times; `rc` adds lines to it (before those).
 */
export function shellHome(kind: ShellKind, options: { sourceSnippet?: number; rc?: string } = {}): ShellHome {
  const home = tempDir("derun-shell-home-");
  const snippet = join(home.path, `derun-init.${kind}`);
  writeFileSync(snippet, shellInit(kind));
  const source = kind === "bash" ? "." : "source";
  const [file, text] = userStartup(kind, (options.rc ?? "") + `${source} ${snippet}\n`.repeat(options.sourceSnippet ?? 0));
  mkdirSync(join(home.path, file, ".."), { recursive: true });
  writeFileSync(join(home.path, file), text);
  writeFileSync(join(home.path, "notes.txt"), "notes line one\nnotes line two\n");
  // fish's first start in a new HOME generates completions from man pages in the background,
  // which keeps the PTY open after fish exits; a HOME that has them already is a user's usual one.
  if (kind === "fish") mkdirSync(join(home.path, ".local/share/fish/generated_completions"), { recursive: true });
  return {
    path: home.path,
    hooks: () => {
      try {
        return readFileSync(join(home.path, "hooks.log"), "utf8").trim().split("\n");
      } catch {
        return [];
      }
    },
    [Symbol.dispose]: () => home[Symbol.dispose](),
  };
}

export interface Shell extends AsyncDisposable {
  readonly run: PtyRun;
  readonly launch: ShellLaunch | undefined;
  type(keys: string): void;
  /** Waits until `predicate` holds for all output so far (raw, and with escapes stripped). */
  until(what: string, predicate: (raw: string, text: string) => boolean): Promise<void>;
  /** Waits until `n` prompts have been printed. */
  prompts(n: number): Promise<void>;
  /** Waits until `command` is the foreground process of the shell's terminal. */
  running(command: string): Promise<void>;
  exit(): Promise<void>;
}

const count = (text: string, part: string) => text.split(part).length - 1;

/** `derun shell` itself, recording into `stateRoot` under `sessionId`. */
export interface ViaDerun {
  readonly stateRoot: string;
  readonly sessionId: string;
}

/**
 * Starts `kind` in `home`: with the marks as `derun shell` starts it (`withMarks`), or plainly, or
 * through `derun shell` itself (`viaDerun`).
 */
export function startShell(
  kind: ShellKind,
  home: ShellHome,
  options: { withMarks: boolean; args?: readonly string[]; env?: Record<string, string>; viaDerun?: ViaDerun },
): Shell {
  const { viaDerun } = options;
  const env: Record<string, string> = {
    HOME: home.path,
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    TERM: "xterm-256color",
    LANG: "C.UTF-8",
    USER: "derun",
    SHELL: Bun.which(kind)!,
    ...(viaDerun ? { DERUN_STATE_ROOT: viaDerun.stateRoot } : { DERUN_SESSION_ID: "shell-marks-test" }),
    ...options.env,
  };
  const args = options.args ?? [];
  const launch = options.withMarks && !viaDerun ? prepareShellLaunch({ shell: kind, args, env }) : undefined;
  const argv = viaDerun
    ? [...derunArgv(), "shell", "--session-id", viaDerun.sessionId, "--", kind, ...args]
    : launch
      ? launch.argv
      : [kind, ...args];
  const run = spawnInPty(argv, { env: { ...(launch?.env ?? env) }, cwd: home.path, cols: COLS, rows: ROWS });
  // The shell's own pid: derun's child when derun runs it (from meta.json, once recorded).
  const shellPid = () =>
    viaDerun
      ? Number(JSON.parse(readFileSync(join(viaDerun.stateRoot, "sessions", viaDerun.sessionId, "meta.json"), "utf8")).pid)
      : run.proc.pid;
  const until = (what: string, predicate: (raw: string, text: string) => boolean) =>
    bounded(
      run,
      what,
      run.waitFor((raw) => predicate(raw, Bun.stripANSI(raw)), what),
    );
  return {
    run,
    launch,
    type: (keys) => run.type(keys),
    until,
    prompts: (n) => until(`prompt ${n}`, (_raw, text) => count(text, PROMPT) >= n),
    async running(command) {
      const stop = { now: false };
      await bounded(run, `${command} in the foreground`, foreground(shellPid, command, stop)).finally(() => (stop.now = true));
    },
    async exit() {
      run.type("exit\r");
      await run.exited;
    },
    async [Symbol.asyncDispose]() {
      // A hang-up, as when a terminal closes: the shell passes it on to its jobs (a sleep left
      // running by a failed test) and exits.
      if (run.proc.exitCode === null && run.proc.signalCode === null) run.proc.kill("SIGHUP");
      await run.exited;
      launch?.[Symbol.dispose]();
    },
  };
}

/** A bound for a hung shell (so the failure shows what it printed), not a timing assertion. */
function bounded(run: PtyRun, what: string, wait: Promise<void>): Promise<void> {
  let timer: Timer | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no ${what} after 30 s; output ends: ${JSON.stringify(new TextDecoder().decode(run.output()).slice(-600))}`)),
      30_000,
    );
  });
  return Promise.race([wait, hung]).finally(() => clearTimeout(timer));
}

/** Resolves once the terminal's foreground process group (stat field tpgid) leads with `command`. */
async function foreground(shellPidOf: () => number, command: string, stop: { now: boolean }): Promise<void> {
  while (!stop.now) {
    try {
      const shellPid = shellPidOf();
      const fields = readFileSync(`/proc/${shellPid}/stat`, "utf8")
        .replace(/^.*\) /s, "")
        .split(" ");
      const tpgid = Number(fields[5]);
      if (tpgid > 0 && tpgid !== shellPid && readFileSync(`/proc/${tpgid}/comm`, "utf8").trim() === command) return;
    } catch {
      // the group leader may be gone between the two reads: look again
    }
    await Bun.sleep(10); // polling a process state, not waiting out a time
  }
}

/** The screen a terminal of our size shows after `output`. */
export async function screenOf(output: Uint8Array): Promise<string> {
  const terminal = new Terminal({ cols: COLS, rows: ROWS, allowProposedApi: true });
  await new Promise<void>((resolve) => terminal.write(output, resolve));
  const lines: string[] = [];
  for (let row = 0; row < ROWS; row++) lines.push(terminal.buffer.active.getLine(row)?.translateToString(true) ?? "");
  terminal.dispose();
  return lines.join("\n").trimEnd();
}

/** The last of the five commands: over two lines, and how the shell reports its line. */
export const MULTI_LINE: Record<ShellKind, { keys: string; line: string }> = {
  bash: { keys: 'for i in 1 2; do\recho "item $i"; done\r', line: 'for i in 1 2; do echo "item $i"; done' }, // as bash keeps it in history
  zsh: { keys: 'for i in 1 2; do\recho "item $i"; done\r', line: 'for i in 1 2; do\necho "item $i"; done' },
  fish: { keys: 'for i in 1 2\recho "item $i"; end\r', line: 'for i in 1 2\necho "item $i"; end' },
};

/** The five commands as their records should read: number, command line, exit status. */
export const FIVE_COMMANDS = (kind: ShellKind): [number, string, number][] => [
  [1, "sh -c 'echo failing; exit 1'", 1],
  [2, "printf 'progress 10%%\\rprogress 50%%\\rprogress 100%%\\n'", 0],
  [3, "less notes.txt", 0],
  [4, "sleep 100", 130],
  [5, MULTI_LINE[kind].line, 0],
];

/**
 * Types five commands by keys, each once the shell is ready for it (one failing, a progress bar, a
 * full-screen program, one interrupted by Ctrl-C, one over two lines), from the first prompt to the
 * sixth.
 */
export async function typeFiveCommands(shell: Shell, kind: ShellKind): Promise<void> {
  await shell.prompts(1);
  shell.type("sh -c 'echo failing; exit 1'\r");
  await shell.prompts(2);
  shell.type("printf 'progress 10%%\\rprogress 50%%\\rprogress 100%%\\n'\r");
  await shell.prompts(3);
  shell.type("less notes.txt\r");
  await shell.until("less showing the file", (_raw, text) => text.includes("(END)"));
  shell.type("q");
  await shell.prompts(4);
  shell.type("sleep 100\r");
  await shell.running("sleep");
  shell.type("\x03");
  await shell.prompts(5);
  shell.type(MULTI_LINE[kind].keys);
  await shell.until("the loop's output and the next prompt", (_raw, text) => text.includes("item 2") && count(text, PROMPT) >= 6);
}
