/**
 * `derun pause` / `derun resume` in a real `derun shell` (bash) driven through tmux (issue 39.1):
 * what the terminal shows between them (the typed line and the command's output) is on the screen
 * but in no file under the state root; readers say where bytes were left out and how many;
 * `--for` resumes by itself; outside a recorded shell both are a one-line usage error (exit 2).
 */
import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { derunArgv, derunEnv, runDerun, tempDir, text } from "../helpers/cli.ts";
import { hasTmux, openShellPane, type ShellPane } from "../helpers/tmux.ts";
import { call } from "../mcp/_harness.ts";
import { connectStdio } from "../mcp/_stdio-client.ts";

const TIMEOUT = 90_000;

/** Every file under `root` that holds `marker` (grep -r, as a person would look). */
const filesHolding = (root: string, marker: string): string[] => {
  try {
    return execFileSync("grep", ["-rl", marker, root], { encoding: "utf8" }).split("\n").filter(Boolean);
  } catch {
    return []; // grep's exit 1: nothing found
  }
};

/** Start `derun shell` (bash) in the pane, recording session `id`, and wait for its first prompt. */
async function recordedShell(pane: ShellPane, id: string): Promise<void> {
  pane.run(`SHELL=/bin/bash derun shell --session-id ${id}`);
  await pane.settled((s) => /\n[^\n]*# $|\n[^\n]*\$ $/.test(`${s} `) && s.split("\n").length > 1, "the recorded shell's prompt");
}

/** Type `line` and wait until `shown` is on the screen. */
async function type(pane: ShellPane, line: string, shown: string | RegExp): Promise<string> {
  pane.run(line);
  return pane.settled((s) => (typeof shown === "string" ? s.includes(shown) : shown.test(s)), JSON.stringify(String(shown)));
}

describe.skipIf(!hasTmux)("derun pause and resume in a recorded bash (tmux)", () => {
  test(
    "paused output reaches the screen and no file; readers say where and how much",
    async () => {
      using state = tempDir();
      using dir = tempDir("derun-pause-");
      await using pane = await openShellPane(dir.path, derunEnv(state.path), derunArgv());
      await recordedShell(pane, "p1");
      await type(pane, "echo before-$((40+2))", "before-42");
      await type(pane, "derun pause", "recording of session p1 paused");
      // Typed in full and printed: the marker is on the screen twice, in the line and the output.
      await type(pane, "echo PAUSEDMARKER-$((6*7)) PAUSEDMARKER", "PAUSEDMARKER-42 PAUSEDMARKER");
      await type(pane, "derun resume", "recording of session p1 resumed");
      await type(pane, "echo after-$((50+5))", "after-55");
      pane.run("exit");
      await pane.prompt();

      expect(pane.screen()).toContain("PAUSEDMARKER-42");
      expect(filesHolding(state.path, "PAUSEDMARKER")).toEqual([]);
      expect(filesHolding(state.path, "before-42").length).toBeGreaterThan(0); // the grep can find things
      const gaps = fs
        .readFileSync(path.join(state.path, "sessions", "p1", "gaps.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(gaps).toHaveLength(1);
      expect(gaps[0]).toMatchObject({ reason: "paused" });
      expect(gaps[0].bytes).toBeGreaterThan("echo PAUSEDMARKER-$((6*7)) PAUSEDMARKER".length * 2);
      // No pause left behind once the shell ended.
      expect(fs.existsSync(path.join(state.path, "sessions", "p1", "paused.json"))).toBe(false);

      const notice = `[derun: ${gaps[0].bytes.toLocaleString("en-US")} bytes not recorded: paused]`;
      const cat = text((await runDerun(["cat", "p1"], { stateRoot: state.path })).stdout);
      expect(cat).toContain(notice);
      expect(cat.indexOf("before-42")).toBeLessThan(cat.indexOf(notice));
      expect(cat.indexOf(notice)).toBeLessThan(cat.indexOf("after-55"));
      expect(cat).not.toContain("PAUSEDMARKER");
      expect((await runDerun(["grep", "PAUSEDMARKER", "p1"], { stateRoot: state.path })).exitCode).toBe(1);

      // The agent reads the same: the gap's place as a cursor of output.bin, and no marker.
      await using client = await connectStdio(state.path);
      const read = await call(client, "derun_read_text", { session_id: "p1", view: "text", tail_lines: 200 });
      expect(read.text.split("\n")[0]).toContain(`${notice} at byte ${gaps[0].offset}`);
      expect(read.text).not.toContain("PAUSEDMARKER");
      const raw = await call(client, "derun_read_output", { session_id: "p1", max_bytes: 1 << 20 });
      expect(raw.result.not_recorded).toEqual([{ cursor: String(gaps[0].offset), bytes: gaps[0].bytes, reason: "paused" }]);
      expect(raw.text).not.toContain("PAUSEDMARKER");
      const later = await call(client, "derun_read_output", { session_id: "p1", cursor: String(gaps[0].offset + 1) });
      expect(later.result.not_recorded).toBeUndefined();
    },
    TIMEOUT,
  );

  test(
    "--for resumes by itself",
    async () => {
      using state = tempDir();
      using dir = tempDir("derun-pause-for-");
      await using pane = await openShellPane(dir.path, derunEnv(state.path), derunArgv());
      await recordedShell(pane, "p2");
      await type(pane, "derun pause --for 1s", "paused until");
      await type(pane, "echo FORMARKER-$((1+1))", "FORMARKER-2");
      // Resumed by the recorder itself once the second has passed: paused.json goes.
      const paused = path.join(state.path, "sessions", "p2", "paused.json");
      for (let i = 0; fs.existsSync(paused); i++) {
        if (i > 200) throw new Error("still paused after 20 s");
        await Bun.sleep(100);
      }
      await type(pane, "echo RECORDED-$((2+2))", "RECORDED-4");
      pane.run("exit");
      await pane.prompt();
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
    expect(text(done.stderr)).toMatch(new RegExp(`^derun: derun ${command} works inside a recorded shell \\(derun shell\\)[^\\n]*\\n`));
  }
  const bad = await runDerun(["pause", "--for", "soon"], { stateRoot: state.path, env: { DERUN_SESSION_ID: "x" } });
  expect([bad.exitCode, text(bad.stderr).split("\n")[0]]).toEqual([
    2,
    'derun: invalid --for "soon": expected a duration such as 3600, 90m or 24h',
  ]);
  expect(fs.readdirSync(state.path)).toEqual([]);
});
