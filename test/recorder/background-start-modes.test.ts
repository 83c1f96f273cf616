/**
 * A job started in the background and later brought to the foreground reads its terminal as bare.
 * An interactive bash has its terminal in its line editor's modes (no echo, no line editing) while
 * it shows the prompt, which is when a `cmd &` starts; on `fg` bash hands the job the terminal in
 * its own saved modes. derun copies the user's modes to the command's terminal when it starts, so
 * it copies them once more on the job's first time in the foreground, unless the command set modes
 * of its own meanwhile. Bare and through derun, in tmux: `cat &` (stopped on tty input), `fg`, a
 * line typed with a correction, then Ctrl-D; and a command that sets its own modes in the
 * background keeps them.
 */
import { describe, expect, test } from "bun:test";
import { derunArgv, derunEnv, tempDir } from "../helpers/cli.ts";
import { hasTmux, openShellPane, type ShellPane } from "../helpers/tmux.ts";

const TIMEOUT = 90_000;

/** Until bash lists its job as stopped (derun stops a moment after its command does). */
async function untilStopped(pane: ShellPane): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    pane.run("jobs");
    const screen = await pane.prompt();
    if (/Stopped/.test(screen.slice(screen.lastIndexOf("$ jobs")))) return;
  }
  throw new Error(`bash never listed the job as stopped:\n${pane.screen()}`);
}

describe.skipIf(!hasTmux || process.platform !== "linux")("a job started in the background, then fg (tmux)", () => {
  for (const viaDerun of [false, true]) {
    const prefix = viaDerun ? "derun run -- " : "";
    const label = viaDerun ? "through derun" : "bare";

    test(
      `cat &, fg, a line typed with a backspace, then Ctrl-D: echoed, edited and read as typed; exit 0 (${label})`,
      async () => {
        using state = tempDir();
        using dir = tempDir("derun-bg-modes-");
        await using pane = await openShellPane(dir.path, derunEnv(state.path), derunArgv());
        pane.run(`${prefix}cat &`);
        await pane.prompt();
        await untilStopped(pane);
        pane.run("fg");
        await pane.settled((screen) => /^(derun run -- )?cat$/m.test(screen), "fg naming the job");
        pane.keys("boz", "BSpace", "x", "Enter");
        // Echoed as typed (the backspace erased), then cat's copy of the edited line.
        await pane.settled((screen) => /^box\nbox$/m.test(screen), "the line echoed, then printed back");
        pane.keys("C-d");
        await pane.prompt();
        pane.run("echo status=$?");
        expect(await pane.settled((screen) => /^status=\d+$/m.test(screen), "the status")).toMatch(/^status=0$/m);
      },
      TIMEOUT,
    );
  }

  test(
    "a command that set its own modes in the background keeps them in the foreground (through derun)",
    async () => {
      using state = tempDir();
      using dir = tempDir("derun-bg-modes-");
      await using pane = await openShellPane(dir.path, derunEnv(state.path), derunArgv());
      // Sets raw mode on its own terminal while in the background (stty is allowed to: TOSTOP is
      // off), then reads a line: in raw mode a key ends no line and is not echoed.
      pane.run(`derun run -- sh -c 'stty raw -echo 2>/dev/null || stty raw -echo; head -c 3 | od -An -c; stty sane' &`);
      await pane.prompt();
      await untilStopped(pane);
      pane.run("fg");
      await pane.settled((screen) => /^derun run -- sh -c/m.test(screen), "fg naming the job");
      pane.keys("a", "b", "c");
      // Raw: three keys end the read with no Enter, nothing echoed before od's line.
      const screen = await pane.settled((s) => /^ +a +b +c$/m.test(s), "od's line of the three keys");
      expect(screen).not.toMatch(/^abc/m);
    },
    TIMEOUT,
  );
});
