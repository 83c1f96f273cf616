/**
 * A real terminal with a user's interactive shell in it: a tmux pane (private server socket) running
 * `bash -i` with prompt `$ ` and no rc file of the user's, where `derun` on PATH is the derun under test. Tests type keys
 * and wait for what the screen shows, never for a fixed time.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { shellQuote } from "./cli.ts";

export const hasTmux = Bun.which("tmux") !== null && Bun.which("bash") !== null;

export interface ShellPane extends AsyncDisposable {
  /** The shell's working directory. */
  readonly dir: string;
  /** Keys as tmux send-keys takes them: literal text, or names such as `Enter`, `C-z`. */
  keys(...keys: string[]): void;
  /** Types `line` and Enter. */
  run(line: string): void;
  /** The visible screen, trailing blanks trimmed. */
  screen(): string;
  /** Resizes the window (the pane's programs get SIGWINCH). */
  resize(cols: number, rows: number): void;
  /** Resolves with the screen once `ready(screen)` holds and the screen has stopped changing. */
  settled(ready: (screen: string) => boolean, what: string): Promise<string>;
  /**
   * Resolves with the screen once the shell has shown a new prompt since the last keys were sent
   * (counted by the shell itself, so a prompt still on the screen from before never counts).
   */
  prompt(): Promise<string>;
}

/** A fresh 100x30 pane with an interactive bash in `dir`, where `derun` on its PATH runs `derun` (an argv). */
export async function openShellPane(dir: string, env: Record<string, string>, derun: readonly string[]): Promise<ShellPane> {
  const bin = join(dir, ".bin");
  Bun.spawnSync(["mkdir", "-p", bin]);
  writeFileSync(join(bin, "derun"), `#!/bin/sh\nexec ${derun.map(shellQuote).join(" ")} "$@"\n`);
  chmodSync(join(bin, "derun"), 0o755);
  const socket = `derun-test-${process.pid}-${Math.random().toString(36).slice(2)}`;
  // The server starts with this environment, and the pane's shell inherits it.
  const paneEnv = { ...env, PATH: `${bin}:${env.PATH ?? process.env.PATH ?? ""}`, PS1: "$ ", TERM: "xterm-256color" };
  const tmux = (...args: string[]) => {
    const result = Bun.spawnSync(["tmux", "-L", socket, "-f", "/dev/null", ...args], { stderr: "pipe", env: paneEnv });
    if (result.exitCode !== 0) throw new Error(`tmux ${args[0]} failed: ${result.stderr.toString()}`);
    return result.stdout.toString();
  };
  // The shell counts the prompts it shows, in a file (nothing on the screen); not exported, so a
  // shell started inside does not count.
  const prompts = join(dir, ".prompts");
  const rc = join(dir, ".bashrc");
  writeFileSync(rc, `PS1='$ '\nPROMPT_COMMAND='__prompts=$((__prompts + 1)); echo $__prompts > ${shellQuote(prompts)}'\n`);
  tmux("new-session", "-d", "-s", "main", "-x", "100", "-y", "30", "-c", dir, `bash --rcfile ${shellQuote(rc)} --noprofile -i`);
  const promptCount = () => Number(existsSync(prompts) ? readFileSync(prompts, "utf8") : "0");
  let promptsBefore = 0;
  const send = (...args: string[]) => {
    promptsBefore = promptCount();
    tmux("send-keys", "-t", "main", ...args);
  };
  const screen = () =>
    tmux("capture-pane", "-p", "-t", "main")
      .split("\n")
      .map((line) => line.trimEnd())
      .join("\n")
      .trimEnd();
  const settled = async (ready: (screen: string) => boolean, what: string) => {
    let previous = "";
    for (let attempt = 0; attempt < 600; attempt++) {
      const now = screen();
      if (ready(now) && now === previous) return now;
      previous = now;
      await Bun.sleep(50);
    }
    throw new Error(`the screen never showed ${what}; last:\n${previous}`);
  };
  const pane: ShellPane = {
    dir,
    keys: (...keys) => send(...keys),
    run: (line) => {
      send("-l", line);
      tmux("send-keys", "-t", "main", "Enter");
    },
    screen,
    resize: (cols, rows) => void tmux("resize-window", "-t", "main", "-x", String(cols), "-y", String(rows)),
    settled,
    prompt: () => settled((s) => promptCount() > promptsBefore && (s.endsWith("\n$") || s === "$"), "the prompt"),
    [Symbol.asyncDispose]: async () => void Bun.spawnSync(["tmux", "-L", socket, "kill-server"]),
  };
  try {
    await pane.prompt();
  } catch (error) {
    await pane[Symbol.asyncDispose]();
    throw error;
  }
  return pane;
}
