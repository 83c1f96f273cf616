/**
 * A real curses program (vim) through `derun run` in a real terminal (a tmux
 * pane) opens, takes keys, writes a file and exits, and the screen is the same as without derun.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { derunArgv, tempDir } from "../helpers/cli.ts";
import { onlySession } from "../helpers/session.ts";

const hasTools = Bun.which("tmux") !== null && Bun.which("vim") !== null;

function tmux(socket: string, ...args: string[]): string {
  const result = Bun.spawnSync(["tmux", "-L", socket, "-f", "/dev/null", ...args], { stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`tmux ${args[0]} failed: ${result.stderr.toString()}`);
  return result.stdout.toString();
}

/** Poll the pane until `ready(screen)` holds; fails after 30 s (a bound for a hang, not a wait). */
async function screenWhen(socket: string, ready: (screen: string) => boolean, what: string): Promise<string> {
  const deadline = performance.now() + 30_000;
  let screen = "";
  while (performance.now() < deadline) {
    screen = tmux(socket, "capture-pane", "-p", "-e", "-t", "main");
    if (ready(screen)) return screen;
    await Bun.sleep(50); // polling the screen, not waiting out a time
  }
  throw new Error(`no ${what} on screen after 30 s; last:\n${screen}`);
}

/** Edit a file in vim inside a fresh 80x24 tmux pane; returns the screen before saving. */
async function editWithVim(prefix: string[], dir: string, stateRoot: string): Promise<string> {
  const socket = `derun-test-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const command = [...prefix, "vim", "-u", "NONE", "-i", "NONE", "-N", "-n", "notes.txt"].map((a) => `'${a}'`).join(" ");
  tmux(
    socket,
    "new-session",
    "-d",
    "-s",
    "main",
    "-x",
    "80",
    "-y",
    "24",
    "-c",
    dir,
    "-e",
    `DERUN_STATE_ROOT=${stateRoot}`,
    "-e",
    "TERM=xterm-256color",
    "-e",
    "NO_COLOR=1",
    // The sleep keeps the tmux server up until we have heard `done`: a command that ends before
    // we wait would otherwise take the server with it (seen under load: "no server running").
    `${command}; tmux wait-for -S done; sleep 60`,
  );
  try {
    // Its message line: vim has set up the terminal and drawn the screen, keys go to it from now.
    await screenWhen(socket, (screen) => screen.includes('"notes.txt" [New]'), "vim message line");
    tmux(socket, "send-keys", "-t", "main", "i", "hello from derun", "Escape", "o", "second line", "Escape");
    // The last Escape taken (vim may wait a moment to tell it from a key sequence): the final screen.
    const screen = await screenWhen(socket, (s) => s.includes("second line") && !s.includes("-- INSERT --"), "edited text in normal mode");
    tmux(socket, "send-keys", "-t", "main", ":wq", "Enter");
    tmux(socket, "wait-for", "done");
    return screen;
  } finally {
    Bun.spawnSync(["tmux", "-L", socket, "kill-server"]);
  }
}

describe.skipIf(!hasTools)("curses parity (vim in tmux)", () => {
  test("vim through derun edits and saves a file, and shows the same screen as without derun", async () => {
    using state = tempDir();
    using withDerun = tempDir("derun-vim-");
    using bare = tempDir("derun-vim-bare-");

    const screenWithDerun = await editWithVim([...derunArgv(), "run", "--"], withDerun.path, state.path);
    const screenBare = await editWithVim([], bare.path, state.path);

    expect(readFileSync(join(withDerun.path, "notes.txt"), "utf8")).toBe("hello from derun\nsecond line\n");
    expect(readFileSync(join(bare.path, "notes.txt"), "utf8")).toBe("hello from derun\nsecond line\n");
    expect(screenWithDerun).toContain("second line");
    expect(screenWithDerun).toBe(screenBare);

    const session = onlySession(state.path);
    expect(session.meta).toMatchObject({ transport_mode: "posix-pty", tty_attached: true });
    expect(session.final).toMatchObject({ state: "exited", exit_code: 0 });
    const recorded = new TextDecoder().decode(session.output);
    expect(recorded).toContain("\x1b[?1049h"); // vim switched to the alternate screen: raw escapes recorded
    expect(recorded).toContain("second line");
    expect(existsSync(join(withDerun.path, ".notes.txt.swp"))).toBe(false);
  });
});
