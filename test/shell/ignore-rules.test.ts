/**
 * The person's ignore rules at record time (issue 39.2), config.json's `record`: in a real
 * `derun shell` (bash) driven through tmux, a command matching `ignore_commands` and every command
 * run under an `ignore_dirs` directory are on the screen but in no file under the state root (their
 * typed line, output and command record); the transcript says bytes were left out, without saying
 * which. `derun run` under an ignored directory runs the command and records nothing, silently
 * unless --verbose. A bad rule: one line, and nothing is recorded rather than everything.
 */
import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { derunArgv, derunEnv, runDerun, tempDir, text } from "../helpers/cli.ts";
import { hasTmux, openShellPane } from "../helpers/tmux.ts";

const TIMEOUT = 90_000;

const filesHolding = (root: string, marker: string): string[] => {
  try {
    return execFileSync("grep", ["-rl", marker, root], { encoding: "utf8" }).split("\n").filter(Boolean);
  } catch {
    return [];
  }
};

/** A home with config.json holding `record`, and a directory `secret` in it. */
function homeWith(record: unknown): { path: string; env: Record<string, string> } & Disposable {
  const home = tempDir("derun-ignore-home-");
  fs.mkdirSync(path.join(home.path, ".config", "derun"), { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(home.path, ".config", "derun", "config.json"), JSON.stringify({ record }));
  fs.mkdirSync(path.join(home.path, "secret"));
  return Object.assign(home, { env: { HOME: home.path, XDG_CONFIG_HOME: path.join(home.path, ".config") } });
}

const RULES = { ignore_commands: ["IGNCMD", "^pass "], ignore_dirs: ["~/secret"] };

describe.skipIf(!hasTmux)("ignore rules in a recorded bash (tmux)", () => {
  test(
    "an ignored command and the commands in an ignored directory reach the screen and no file",
    async () => {
      using state = tempDir();
      using home = homeWith(RULES);
      // The pane's own directory is not HOME: its rc file (and prompt counter) must not be the recorded shell's too.
      using dir = tempDir("derun-ignore-pane-");
      await using pane = await openShellPane(dir.path, derunEnv(state.path, home.env), derunArgv());
      pane.run("SHELL=/bin/bash derun shell --session-id s1");
      await pane.settled((s) => s.split("\n").length > 1 && /[#$]$/.test(s), "the recorded shell's prompt");
      const type = async (line: string, shown: string) => {
        pane.run(line);
        return pane.settled((s) => s.includes(shown), JSON.stringify(shown));
      };
      await type("echo visible-$((1+1))", "visible-2");
      await type("echo IGNCMD-$((6*7)) IGNCMD", "IGNCMD-42 IGNCMD");
      await type("cd ~/secret", "cd ~/secret");
      await type("echo DIRMARK-$((2+3)) DIRMARK", "DIRMARK-5 DIRMARK");
      await type("derun run -- echo RUNMARK-$((3+4))", "RUNMARK-7");
      await type("cd ..; echo back-$((4+4))", "back-8");
      await type("echo visible-$((5+5))", "visible-10");
      pane.run("exit");
      await pane.prompt();

      for (const marker of ["IGNCMD", "DIRMARK", "RUNMARK"])
        expect({ marker, files: filesHolding(state.path, marker) }).toEqual({ marker, files: [] });
      expect(filesHolding(state.path, "visible-10").length).toBeGreaterThan(0);
      // One session: the shell's. The `derun run` under secret/ made none.
      expect(fs.readdirSync(path.join(state.path, "sessions"))).toEqual(["s1"]);
      const gaps = fs
        .readFileSync(path.join(state.path, "sessions", "s1", "gaps.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(gaps.length).toBeGreaterThanOrEqual(2);
      expect(new Set(gaps.map((g) => g.reason))).toEqual(new Set(["ignored"]));
      const commands = text((await runDerun(["ls", "s1", "--commands"], { stateRoot: state.path })).stdout);
      expect(commands).toContain("echo visible-$((1+1))");
      expect(commands).toContain("cd ~/secret");
      expect(commands).toContain("echo visible-$((5+5))");
      expect(commands).not.toMatch(/IGNCMD|DIRMARK|RUNMARK|back-/);
      const cat = text((await runDerun(["cat", "s1"], { stateRoot: state.path })).stdout);
      expect(cat).toContain(`[derun: ${gaps[0].bytes.toLocaleString("en-US")} bytes not recorded: ignored]`);
    },
    TIMEOUT,
  );
});

test("derun run under an ignored directory: the command runs, nothing is recorded, silent unless --verbose", async () => {
  using state = tempDir();
  using home = homeWith(RULES);
  const cwd = path.join(home.path, "secret");
  const quiet = await runDerun(["run", "--", "sh", "-c", "echo RUNMARK; exit 3"], { stateRoot: state.path, env: home.env, cwd });
  expect([quiet.exitCode, text(quiet.stdout), text(quiet.stderr)]).toEqual([3, "RUNMARK\n", ""]);
  const loud = await runDerun(["run", "--verbose", "--", "echo", "RUNMARK"], { stateRoot: state.path, env: home.env, cwd });
  expect([loud.exitCode, text(loud.stdout)]).toEqual([0, "RUNMARK\n"]);
  expect(text(loud.stderr)).toBe(`derun: this run was not recorded: ${cwd} is under record.ignore_dirs of the settings file\n`);
  expect(filesHolding(state.path, "RUNMARK")).toEqual([]);
  expect(fs.existsSync(path.join(state.path, "sessions"))).toBe(false);
  // Elsewhere it records as ever.
  const elsewhere = await runDerun(["run", "--", "echo", "RUNMARK"], { stateRoot: state.path, env: home.env, cwd: home.path });
  expect(elsewhere.exitCode).toBe(0);
  expect(filesHolding(state.path, "RUNMARK").length).toBeGreaterThan(0);
});

test("a bad rule or settings file: the command runs, one line says why, nothing is recorded", async () => {
  for (const [record, why] of [
    [{ ignore_commands: ["("] }, /record\.ignore_commands\[0\] "\(" is not a regular expression/],
    [{ ignore_dirs: ["relative/dir"] }, /record\.ignore_dirs\[0\] "relative\/dir" is not an absolute directory/],
    [{ ignore_command: ["x"] }, /"record" has no setting "ignore_command"/],
    [["x"], /"record" must be an object/],
  ] as const) {
    using state = tempDir();
    using home = homeWith(record);
    const done = await runDerun(["run", "--", "echo", "BADMARK"], { stateRoot: state.path, env: home.env, cwd: home.path });
    expect([done.exitCode, text(done.stdout)]).toEqual([0, "BADMARK\n"]);
    const lines = text(done.stderr).split("\n");
    expect(lines.length).toBe(2);
    expect(lines[0]).toStartWith("derun: this run was not recorded: settings file ");
    expect(lines[0]).toMatch(why);
    expect(filesHolding(state.path, "BADMARK")).toEqual([]);
  }
});
