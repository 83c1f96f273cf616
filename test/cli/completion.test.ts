/**
 * `derun completion bash|zsh|fish` loaded into the real shells: bash's completion function called as
 * readline calls it, fish's `complete -C`, zsh's completion system driven by keys in tmux. Each
 * completes commands, flags, flag values and the recorded sessions of the `--state-root` given on
 * the line (not the environment's).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { derunEnv, derunShell, runDerun, tempDir, text } from "../helpers/cli.ts";
import { recordPipe, waitUntil } from "../helpers/cli-recordings.ts";

const bin = tempDir("derun-completion-bin-");
const env = tempDir("derun-completion-env-");
const flagged = tempDir("derun-completion-flag-");
const scripts: Record<string, string> = {};
const CLIENTS = ["claude-code", "claude-desktop", "codex", "cursor", "vscode", "gemini"];

beforeAll(async () => {
  // `derun` on PATH, as a user has it: a script starting the derun under test.
  writeFileSync(join(bin.path, "derun"), `#!/bin/sh\nexec ${derunShell()} "$@"\n`);
  chmodSync(join(bin.path, "derun"), 0o755);
  await recordPipe(env.path, "from-env", "true");
  await recordPipe(flagged.path, "from-flag", "true");
  for (const shell of ["bash", "zsh", "fish"]) {
    const done = await runDerun(["completion", shell], { stateRoot: env.path });
    expect(done.exitCode).toBe(0);
    scripts[shell] = join(bin.path, `derun.${shell}`);
    writeFileSync(scripts[shell]!, done.stdout);
  }
});

const shellEnv = () => derunEnv(env.path, { PATH: `${bin.path}:${process.env.PATH}` });

/** What bash's completion function offers for the words of a line (the last one being completed). */
function bashComplete(...words: string[]): string[] {
  const script =
    `source ${scripts.bash}; COMP_WORDS=("$@"); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); _derun; printf '%s\\n' ` + `"\${COMPREPLY[@]}"`;
  const done = Bun.spawnSync(["bash", "-c", script, "bash", ...words], { env: shellEnv() });
  expect(text(done.stderr)).toBe("");
  return text(done.stdout).split("\n").filter(Boolean);
}

describe("completion", () => {
  test("bash: loads, registers derun, completes commands, flags, values and sessions", () => {
    const loaded = Bun.spawnSync(["bash", "-c", `source ${scripts.bash} && complete -p derun`], { env: shellEnv() });
    expect(text(loaded.stdout)).toBe("complete -F _derun derun\n");
    expect(bashComplete("derun", "s")).toEqual(["shell", "shell-init", "show"]);
    expect(bashComplete("derun", "tail", "--")).toEqual([
      "--lines",
      "--follow",
      "--view",
      "--command",
      "--no-redact",
      "--state-root",
      "--help",
    ]);
    expect(bashComplete("derun", "ls", "--state", "r")).toEqual(["running"]);
    expect(bashComplete("derun", "cat", "--view", "")).toEqual(["text", "screen", "raw"]);
    expect(bashComplete("derun", "show", "")).toEqual(["from-env", "last", "last~1", "last~2"]);
    expect(bashComplete("derun", "tail", "--state-root", flagged.path, "")).toEqual(["from-flag", "last", "last~1", "last~2"]);
    expect(bashComplete("derun", "run", "--", "derun-no-such-comman")).toEqual([]);
    expect(bashComplete("derun", "run", "--", "bas")).toContain("bash");
    expect(bashComplete("derun", "completion", "")).toEqual(["bash", "zsh", "fish"]);
    expect(bashComplete("derun", "gr")).toEqual(["grep"]);
    expect(bashComplete("derun", "grep", "--c")).toEqual(["--context", "--count", "--color", "--channel", "--command"]);
    expect(bashComplete("derun", "grep", "-i", "error", "")).toEqual(["from-env", "last", "last~1", "last~2"]);
    expect(bashComplete("derun", "cat", "--command", "")).toEqual(["last"]);
    expect(bashComplete("derun", "tail", "--view", "s")).toEqual(["screen"]);
    expect(bashComplete("derun", "ls", "--co")).toEqual(["--commands"]);
    expect(bashComplete("derun", "ls", "--commands", "")).toEqual(["from-env", "last", "last~1", "last~2"]);
  });

  test("bash: derun mcp config <Tab> offers the MCP clients, once; help is a command, and help help", () => {
    expect(bashComplete("derun", "mcp", "")).toEqual(["config"]);
    expect(bashComplete("derun", "mcp", "config", "")).toEqual(CLIENTS);
    expect(bashComplete("derun", "mcp", "config", "c")).toEqual(["claude-code", "claude-desktop", "codex", "cursor"]);
    expect(bashComplete("derun", "mcp", "config", "--state-root", flagged.path, "")).toEqual(CLIENTS);
    expect(bashComplete("derun", "mcp", "config", "codex", "")).toEqual([]);
    expect(bashComplete("derun", "mcp", "config", "--j")).toEqual(["--json"]);
    expect(bashComplete("derun", "he")).toEqual(["help"]);
    expect(bashComplete("derun", "help", "he")).toEqual(["help"]);
  });

  test.skipIf(!Bun.which("fish"))("fish: complete -C offers the same", () => {
    const complete = (line: string) => {
      const done = Bun.spawnSync(["fish", "--no-config", "-c", `source ${scripts.fish}; complete -C ${JSON.stringify(line)}`], {
        env: shellEnv(),
      });
      expect(text(done.stderr)).toBe("");
      return text(done.stdout)
        .split("\n")
        .filter(Boolean)
        .map((candidate) => candidate.split("\t")[0]);
    };
    expect(complete("derun sh")).toEqual(["shell", "shell-init", "show"]);
    expect(complete("derun ls --state r")).toEqual(["running"]);
    expect(complete("derun show ")).toEqual(["from-env", "last", "last~1", "last~2"]);
    expect(complete(`derun rm --state-root ${flagged.path} `)).toEqual(["from-flag", "last", "last~1", "last~2"]);
    expect(complete("derun tail --fo")).toEqual(["--follow"]);
    expect(complete("derun gr")).toEqual(["grep"]);
    expect(complete("derun tail --command ")).toEqual(["last"]);
    expect(complete("derun grep -C 2 warning ")).toEqual(["from-env", "last", "last~1", "last~2"]);
    expect(complete("derun run -- bas")).toContain("bash");
    expect(complete("derun mcp ")).toEqual(["config"]);
    expect(complete("derun mcp config ")).toEqual([...CLIENTS].sort());
    expect(complete("derun mcp config codex ")).toEqual([]);
    expect(complete("derun mcp config --j")).toEqual(["--json"]);
  });

  test.skipIf(!Bun.which("zsh") || !Bun.which("tmux"))("zsh: the completion system, driven by keys in tmux", async () => {
    const session = `derun-zsh-${process.pid}`;
    const tmux = (...args: string[]) => text(Bun.spawnSync(["tmux", "-L", session, ...args], { env: shellEnv() }).stdout);
    const screen = () => tmux("capture-pane", "-p", "-t", session);
    tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "40", "zsh", "-f");
    try {
      tmux("send-keys", "-t", session, `autoload -Uz compinit && compinit -u && source ${scripts.zsh} && echo LOADED`, "Enter");
      await waitUntil(() => /^LOADED$/m.test(screen()), "the script loaded");
      tmux("send-keys", "-t", session, "derun sho", "Tab");
      // capture-pane drops the blank that follows a completed word
      await waitUntil(() => /derun show$/m.test(screen()), "derun sho<Tab> completed to show");
      tmux("send-keys", "-t", session, "Tab");
      await waitUntil(() => screen().includes("from-env") && screen().includes("last"), "the sessions listed");
      tmux("send-keys", "-t", session, "C-u", `derun tail --state-root ${flagged.path} `, "Tab");
      await waitUntil(() => screen().includes("from-flag"), "the flag's state root's sessions");
      tmux("send-keys", "-t", session, "C-u", "derun gre", "Tab");
      await waitUntil(() => /derun grep$/m.test(screen()), "derun gre<Tab> completed to grep");
      tmux("send-keys", "-t", session, "C-u", "derun cat --comm", "Tab");
      await waitUntil(() => /derun cat --command=$/m.test(screen()), "--comm<Tab> completed to --command=");
      tmux("send-keys", "-t", session, "Tab");
      await waitUntil(() => /derun cat --command=last$/m.test(screen()), "--command's value completed to last");
      tmux("send-keys", "-t", session, "C-u", "derun ls --st", "Tab");
      await waitUntil(() => /derun ls --state$/m.test(screen()), "the common prefix of --state and --state-root");
      tmux("send-keys", "-t", session, "Tab");
      await waitUntil(() => /--state-root +-- Where sessions are kept/.test(screen()), "the flags with descriptions");
      tmux("send-keys", "-t", session, "C-u", "derun mcp config cod", "Tab");
      await waitUntil(() => /derun mcp config codex$/m.test(screen()), "derun mcp config cod<Tab> completed to codex");
      tmux("send-keys", "-t", session, "C-u", "derun mcp config claude-d", "Tab");
      await waitUntil(() => /derun mcp config claude-desktop$/m.test(screen()), "claude-d<Tab> completed to claude-desktop");
    } catch (error) {
      throw new Error(`${(error as Error).message}; the screen:\n${screen()}`);
    } finally {
      tmux("kill-server");
    }
  });
});
