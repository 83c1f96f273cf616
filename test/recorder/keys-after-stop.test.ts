/**
 * Keys typed right after Ctrl-Z reach the shell that gets the terminal back, as without derun:
 * derun stops reading its terminal at the key that stops the command, so what follows stays in the
 * terminal for the shell. Keys derun did read with that key are never lost: the command gets them
 * when it continues (they cannot be given back to the terminal). A real terminal (tmux) with a
 * user's interactive bash.
 */
import { describe, expect, test } from "bun:test";
import { derunArgv, derunEnv, tempDir } from "../helpers/cli.ts";
import { sessionIds } from "../helpers/session.ts";
import { waitForProcessState } from "../helpers/threads.ts";
import { hasTmux, openShellPane } from "../helpers/tmux.ts";

const TIMEOUT = 60_000;

describe.skipIf(!hasTmux)("keys typed right after Ctrl-Z (tmux)", () => {
  for (const prefix of ["derun run -- ", ""]) {
    test(
      `reach the shell: it runs the line typed as soon as the command stopped (${prefix ? "through derun" : "bare"})`,
      async () => {
        using state = tempDir();
        using dir = tempDir("derun-keys-after-stop-");
        await using pane = await openShellPane(dir.path, derunEnv(state.path), derunArgv());
        pane.run(`${prefix}sh -c 'echo ready $$; exec sleep 100'`);
        const pid = Number(/^ready (\d+)$/m.exec(await pane.settled((s) => /ready \d+$/.test(s), "ready"))?.[1]);
        pane.keys("C-z");
        // The line as soon as the command stopped: derun must not be reading any more (it took keys
        // until it gave the terminal back, up to 200 ms later). Sooner, derun may read the line with
        // the C-z in one chunk: the command then gets it when continued (the last test).
        await waitForProcessState(pid, "T");
        pane.run("echo typed-right-after");
        const screen = await pane.settled(
          (s) => /^typed-right-after$/m.test(s) && s.endsWith("\n$"),
          "the shell ran the line typed after C-z",
        );
        expect(screen).toContain("Stopped");
        pane.run("fg");
        await pane.settled((s) => s.endsWith("exec sleep 100'"), "fg");
        pane.keys("C-c");
        await pane.prompt();
        if (prefix) expect(sessionIds(state.path)).toHaveLength(1);
      },
      TIMEOUT,
    );
  }

  test(
    "keys derun read together with C-z are kept for the command: it reads them once fg continues it",
    async () => {
      using state = tempDir();
      using dir = tempDir("derun-keys-after-stop-");
      await using pane = await openShellPane(dir.path, derunEnv(state.path), derunArgv());
      pane.run(`derun run -- sh -c 'echo ready; read line; echo "got [$line]"'`);
      await pane.settled((s) => s.endsWith("ready"), "ready");
      // One send-keys: tmux writes them at once, so derun reads them in one chunk with the C-z.
      pane.keys("C-z", "kept-keys");
      await pane.settled((s) => /Stopped/.test(s) && s.endsWith("\n$"), "the command stopped");
      pane.run("fg");
      await pane.settled((s) => s.includes("read line;"), "fg");
      pane.keys("Enter");
      const screen = await pane.prompt();
      expect(screen).toMatch(/^got \[.*kept-keys\]$/m);
    },
    TIMEOUT,
  );
});
