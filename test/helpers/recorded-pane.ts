/**
 * A recorded shell (`derun shell -- bash|zsh|fish`) in a real terminal: a tmux pane whose own bash
 * starts it, with a private HOME holding the user's startup file (prompt `rec> `, nothing else) and,
 * when given, derun's settings file. Tests type lines and wait for their output and the next prompt.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type { ShellKind } from "../../src/shell/init.ts";
import { derunArgv, derunEnv, tempDir } from "./cli.ts";
import { openShellPane, type ShellPane } from "./tmux.ts";

const PROMPT = "rec>";

/** The user's startup file for `kind`, with the prompt `rec> `. */
const STARTUP: Record<ShellKind, [string, string]> = {
  bash: [".bashrc", "PS1='rec> '\n"],
  zsh: [".zshrc", "PS1='rec> '\n"],
  fish: [".config/fish/config.fish", "function fish_prompt; printf 'rec> '; end\nfunction fish_greeting; end\n"],
};

export interface RecordedPane extends AsyncDisposable {
  readonly pane: ShellPane;
  readonly home: string;
  /** Type `line` in the recorded shell; resolves once `shown` is on the screen and the prompt is back. */
  type(line: string, shown: string): Promise<string>;
  /** Exit the recorded shell and wait for the pane's own prompt. */
  exit(): Promise<void>;
}

/**
 * A pane recording `derun shell --session-id <id> -- <kind>` into `stateRoot`, its HOME with
 * `~/secret` and, when `config` is given, `~/.config/derun/config.json` holding it.
 */
export async function recordedPane(kind: ShellKind, stateRoot: string, id: string, config?: unknown): Promise<RecordedPane> {
  const home = tempDir(`derun-rec-${kind}-`);
  const paneDir = tempDir("derun-rec-pane-"); // not HOME: the pane's own rc and prompt counter stay its own
  const [file, text] = STARTUP[kind];
  fs.mkdirSync(path.join(home.path, file, ".."), { recursive: true });
  fs.writeFileSync(path.join(home.path, file), text);
  fs.mkdirSync(path.join(home.path, "secret"));
  // fish's first start in a new HOME generates completions in the background, keeping the PTY open.
  if (kind === "fish") fs.mkdirSync(path.join(home.path, ".local/share/fish/generated_completions"), { recursive: true });
  const configHome = path.join(home.path, ".config");
  if (config !== undefined) {
    fs.mkdirSync(path.join(configHome, "derun"), { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(configHome, "derun", "config.json"), JSON.stringify(config));
  }
  const env = derunEnv(stateRoot, { HOME: home.path, XDG_CONFIG_HOME: configHome });
  const pane = await openShellPane(paneDir.path, env, derunArgv());
  const dispose = async () => {
    await pane[Symbol.asyncDispose]();
    home[Symbol.dispose]();
    paneDir[Symbol.dispose]();
  };
  try {
    pane.run(`cd ~ && derun shell --session-id ${id} -- ${kind}`);
    await pane.settled((s) => s.endsWith(PROMPT), `the ${kind} prompt`);
  } catch (error) {
    await dispose();
    throw error;
  }
  return {
    pane,
    home: home.path,
    type: (line, shown) => {
      pane.run(line);
      return pane.settled((s) => s.includes(shown) && s.endsWith(PROMPT), JSON.stringify(shown));
    },
    exit: async () => {
      pane.run("exit");
      await pane.prompt();
    },
    [Symbol.asyncDispose]: dispose,
  };
}

/** Every file under `root` that holds `marker` (grep -r, as a person would look). */
export function filesHolding(root: string, marker: string): string[] {
  try {
    return execFileSync("grep", ["-rl", marker, root], { encoding: "utf8" }).split("\n").filter(Boolean);
  } catch {
    return []; // grep's exit 1: nothing found
  }
}

/** The lines of a session's gaps.jsonl. */
export function gapsOf(stateRoot: string, id: string): Array<{ offset: number; bytes: number; reason: string }> {
  const file = path.join(stateRoot, "sessions", id, "gaps.jsonl");
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
}
