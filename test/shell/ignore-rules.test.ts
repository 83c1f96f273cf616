/**
 * The person's ignore rules at record time (issue 39.2), config.json's `record`: in a real
 * `derun shell` (bash, zsh and fish, each where installed) driven through tmux, a command matching `ignore_commands` and every command
 * run under an `ignore_dirs` directory are on the screen but in no file under the state root (their
 * typed line, output and command record); the transcript says bytes were left out, without saying
 * which. `derun run` under an ignored directory runs the command and records nothing, silently
 * unless --verbose. A bad rule: one line, and nothing is recorded rather than everything.
 */
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { runDerun, tempDir, text } from "../helpers/cli.ts";
import { hasTmux } from "../helpers/tmux.ts";
import { filesHolding, gapsOf, recordedPane } from "../helpers/recorded-pane.ts";
import { SHELLS } from "../helpers/shells.ts";

const TIMEOUT = 90_000;

/** A home with config.json holding `record`, and a directory `secret` in it. */
function homeWith(record: unknown): { path: string; env: Record<string, string> } & Disposable {
  const home = tempDir("derun-ignore-home-");
  fs.mkdirSync(path.join(home.path, ".config", "derun"), { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(home.path, ".config", "derun", "config.json"), JSON.stringify({ record }));
  fs.mkdirSync(path.join(home.path, "secret"));
  return Object.assign(home, { env: { HOME: home.path, XDG_CONFIG_HOME: path.join(home.path, ".config") } });
}

const RULES = { ignore_commands: ["IGNCMD", "^pass "], ignore_dirs: ["~/secret"] };

describe.skipIf(!hasTmux).each(SHELLS)("ignore rules in a recorded %s (tmux)", (kind) => {
  test(
    "an ignored command and the commands in an ignored directory reach the screen and no file",
    async () => {
      using state = tempDir();
      await using shell = await recordedPane(kind, state.path, "s1", { record: RULES });
      await shell.type("printf '%s-%s\\n' visible 2", "visible-2");
      await shell.type("printf '%s-%s\\n' IGNCMD 42", "IGNCMD-42");
      await shell.type("cd ~/secret", "cd ~/secret");
      await shell.type("printf '%s-%s\\n' DIRMARK 5", "DIRMARK-5");
      await shell.type("derun run -- printf '%s-%s\\n' RUNMARK 7", "RUNMARK-7");
      await shell.type("cd ..; printf '%s-%s\\n' back 8", "back-8");
      await shell.type("printf '%s-%s\\n' visible 10", "visible-10");
      await shell.exit();

      for (const marker of ["IGNCMD", "DIRMARK", "RUNMARK", "back-8"])
        expect({ marker, files: filesHolding(state.path, marker) }).toEqual({ marker, files: [] });
      expect(filesHolding(state.path, "visible-10").length).toBeGreaterThan(0);
      // One session: the shell's. The `derun run` under secret/ made none.
      expect(fs.readdirSync(path.join(state.path, "sessions"))).toEqual(["s1"]);
      const gaps = gapsOf(state.path, "s1");
      expect(gaps.length).toBeGreaterThanOrEqual(2);
      expect(new Set(gaps.map((g) => g.reason))).toEqual(new Set(["ignored"]));
      const commands = text((await runDerun(["ls", "s1", "--commands"], { stateRoot: state.path })).stdout);
      expect(commands).toContain("visible 2");
      expect(commands).toContain("cd ~/secret");
      expect(commands).toContain("visible 10");
      expect(commands).not.toMatch(/IGNCMD|DIRMARK|RUNMARK|back/);
      const cat = text((await runDerun(["cat", "s1"], { stateRoot: state.path })).stdout);
      expect(cat).toContain(`[derun: ${gaps[0]!.bytes.toLocaleString("en-US")} bytes not recorded: ignored]`);
      expect(cat).toContain("visible-10");
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
