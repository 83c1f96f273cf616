/**
 * `derun pause` / `derun resume` in a real `derun shell` (bash, zsh and fish, each where installed)
 * driven through tmux (issue 39.1): what the terminal shows between them (the typed line and the
 * command's output) is on the screen but in no file under the state root; readers say where bytes
 * were left out and how many; `--for` resumes by itself; outside a recorded shell both are a
 * one-line usage error (exit 2).
 */
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { runDerun, tempDir, text } from "../helpers/cli.ts";
import { hasTmux } from "../helpers/tmux.ts";
import { call } from "../helpers/harness.ts";
import { connectStdio } from "../helpers/stdio-client.ts";
import { filesHolding, gapsOf, recordedPane } from "../helpers/recorded-pane.ts";
import { SHELLS } from "../helpers/shells.ts";

const TIMEOUT = 90_000;

describe.skipIf(!hasTmux).each(SHELLS)("derun pause and resume in a recorded %s (tmux)", (kind) => {
  test(
    "paused output reaches the screen and no file; readers say where and how much",
    async () => {
      using state = tempDir();
      await using shell = await recordedPane(kind, state.path, "p1");
      await shell.type("printf '%s-%s\\n' before 42", "before-42");
      await shell.type("derun pause", "recording of session p1 paused");
      expect(text((await runDerun(["show", "p1"], { stateRoot: state.path })).stdout)).toMatch(/^paused +since \S+$/m);
      // Typed in full and printed: the marker is on the screen in the line and in the output.
      await shell.type("printf '%s-%s\\n' PAUSEDMARKER 42", "PAUSEDMARKER-42");
      await shell.type("derun resume", "recording of session p1 resumed");
      await shell.type("printf '%s-%s\\n' after 55", "after-55");
      await shell.exit();

      expect(shell.pane.screen()).toContain("PAUSEDMARKER-42");
      expect(filesHolding(state.path, "PAUSEDMARKER")).toEqual([]);
      expect(filesHolding(state.path, "before-42").length).toBeGreaterThan(0); // the grep can find things
      const gaps = gapsOf(state.path, "p1");
      expect(gaps.map((g) => g.reason)).toEqual(["paused"]);
      expect(gaps[0]!.bytes).toBeGreaterThan("PAUSEDMARKER-42".length * 2);
      // No pause left behind once the shell ended.
      expect(fs.existsSync(path.join(state.path, "sessions", "p1", "paused.json"))).toBe(false);

      const notice = `[derun: ${gaps[0]!.bytes.toLocaleString("en-US")} bytes not recorded: paused]`;
      const cat = text((await runDerun(["cat", "p1"], { stateRoot: state.path })).stdout);
      expect(cat).toContain(notice);
      expect(cat.indexOf("before-42")).toBeLessThan(cat.indexOf(notice));
      expect(cat.indexOf(notice)).toBeLessThan(cat.indexOf("after-55"));
      expect(cat).not.toContain("PAUSEDMARKER");
      expect((await runDerun(["grep", "PAUSEDMARKER", "p1"], { stateRoot: state.path })).exitCode).toBe(1);
      const show = text((await runDerun(["show", "p1"], { stateRoot: state.path })).stdout);
      expect(show).toContain(`unrecorded ${gaps[0]!.bytes} bytes kept out`);
      expect(show).not.toMatch(/^paused/m);

      // The agent reads the same: the gap's place as a cursor of output.bin, and no marker.
      await using client = await connectStdio(state.path);
      const read = await call(client, "derun_read_text", { session_id: "p1", view: "text", tail_lines: 200 });
      expect(read.text.split("\n")[0]).toContain(`${notice} at byte ${gaps[0]!.offset}`);
      expect(read.text).not.toContain("PAUSEDMARKER");
      expect((await call(client, "derun_get_session", { session_id: "p1" })).result.session.not_recorded_bytes).toBe(gaps[0]!.bytes);
      const raw = await call(client, "derun_read_output", { session_id: "p1", max_bytes: 1 << 20 });
      expect(raw.result.not_recorded).toEqual([{ cursor: String(gaps[0]!.offset), bytes: gaps[0]!.bytes, reason: "paused" }]);
      expect(raw.text).not.toContain("PAUSEDMARKER");
      const later = await call(client, "derun_read_output", { session_id: "p1", cursor: String(gaps[0]!.offset + 1) });
      expect(later.result.not_recorded).toBeUndefined();
    },
    TIMEOUT,
  );

  test(
    "--for resumes by itself",
    async () => {
      using state = tempDir();
      await using shell = await recordedPane(kind, state.path, "p2");
      await shell.type("derun pause --for 1s", "paused until");
      await shell.type("printf '%s-%s\\n' FORMARKER 2", "FORMARKER-2");
      // Resumed by the recorder itself once the second has passed: paused.json goes.
      const paused = path.join(state.path, "sessions", "p2", "paused.json");
      for (let i = 0; fs.existsSync(paused); i++) {
        if (i > 200) throw new Error("still paused after 20 s");
        await Bun.sleep(100);
      }
      await shell.type("printf '%s-%s\\n' RECORDED 4", "RECORDED-4");
      await shell.exit();
      expect(filesHolding(state.path, "FORMARKER")).toEqual([]);
      expect(filesHolding(state.path, "RECORDED-4").length).toBeGreaterThan(0);
    },
    TIMEOUT,
  );
});

test("outside a recorded shell: a one-line usage error, exit 2, nothing written", async () => {
  using state = tempDir();
  for (const command of ["pause", "resume"]) {
    const done = await runDerun([command], { stateRoot: state.path });
    expect([done.exitCode, text(done.stdout)]).toEqual([2, ""]);
    // The dispatcher's usual second line for a usage error: how to get help.
    expect(text(done.stderr)).toBe(
      `derun: derun ${command} works inside a recorded shell (derun shell): DERUN_SESSION_ID is not set here\n` +
        `Run "derun ${command} --help" for usage.\n`,
    );
  }
  const bad = await runDerun(["pause", "--for", "soon"], { stateRoot: state.path, env: { DERUN_SESSION_ID: "x" } });
  expect([bad.exitCode, text(bad.stderr).split("\n")[0]]).toEqual([
    2,
    'derun: invalid --for "soon": expected a duration such as 3600, 90m or 24h',
  ]);
  expect(fs.readdirSync(state.path)).toEqual([]);
});
