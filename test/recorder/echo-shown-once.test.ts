/**
 * A key's echo may go to the screen from derun's reader thread itself (core/transport.ts OutputShow):
 * each echo is still on the screen once and in the recording once, in order, also across a Ctrl-Z
 * stop, the shell's prompt on the restored terminal, and `fg`. A real terminal (tmux) with a user's
 * interactive bash; the command echoes each key itself (`dd bs=1`), as an editor does.
 */
import { describe, expect, test } from "bun:test";
import { derunArgv, derunEnv, tempDir, text } from "../helpers/cli.ts";
import { channelBytes, onlySession } from "../helpers/session.ts";
import { waitForProcessState } from "../helpers/threads.ts";
import { hasTmux, openShellPane } from "../helpers/tmux.ts";

const TIMEOUT = 60_000;

describe.skipIf(!hasTmux)("key echo through derun (tmux)", () => {
  test(
    "each echo is shown once and recorded once, across a Ctrl-Z stop and fg",
    async () => {
      using state = tempDir();
      using dir = tempDir("derun-echo-shown-once-");
      await using pane = await openShellPane(dir.path, derunEnv(state.path), derunArgv());
      // Keys one at a time, echoed by the command (the terminal's own echo off, Ctrl-Z still a signal).
      pane.run(`derun run -- sh -c 'stty -icanon -echo; echo ready $$; exec dd bs=1 status=none'`);
      const pid = Number(/^ready (\d+)$/m.exec(await pane.settled((s) => /ready \d+$/.test(s), "ready"))?.[1]);
      const typed = ["q", "w", "e", "r", "t", "y"];
      let echoed = "";
      for (const key of typed.slice(0, 3)) {
        pane.keys(key);
        echoed += key;
        await pane.settled((s) => s.endsWith(`\n${echoed}`), `the echo of ${key}`);
      }
      pane.keys("C-z");
      await waitForProcessState(pid, "T");
      await pane.settled((s) => /Stopped/.test(s) && s.endsWith("\n$"), "the shell's prompt");
      pane.run("fg");
      await pane.settled((s) => s.endsWith("dd bs=1 status=none'"), "fg");
      let after = "";
      for (const key of typed.slice(3)) {
        pane.keys(key);
        after += key;
        await pane.settled((s) => s.endsWith(`\n${after}`) || s.endsWith(`'${after}`), `the echo of ${key} after fg`);
      }
      pane.keys("C-c");
      const screen = await pane.prompt();
      // On the screen: each echo once (before the stop, after fg).
      expect(screen.split("qwe").length - 1).toBe(1);
      expect(screen.split("rty").length - 1).toBe(1);
      // In the recording: every echo once, in order, right after what the command printed first.
      const recorded = text(channelBytes(onlySession(state.path), "pty"));
      expect(recorded).toBe(`ready ${pid}\r\nqwerty`);
    },
    TIMEOUT,
  );
});
