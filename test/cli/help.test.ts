/**
 * The command line's own conventions, for every command in the map: `derun <command> --help` and
 * `derun help <command>` print the same help, with a usage line and examples, without padding at
 * line ends; colour only on a terminal and never with NO_COLOR; `-V`, `--version` and `version`.
 */
import { describe, expect, test } from "bun:test";
import { commands } from "../../src/cli/commands/index.ts";
import { derunArgv, derunEnv, runDerun, tempDir, text } from "../helpers/cli.ts";
import { spawnInPty } from "../helpers/pty.ts";

const names = Object.keys(commands);

describe("help", () => {
  test.each(names)("derun %s --help equals derun help %s: usage line, examples, no trailing blanks", async (name) => {
    using state = tempDir();
    const [flag, word] = await Promise.all([
      runDerun([name, "--help"], { stateRoot: state.path }),
      runDerun(["help", name], { stateRoot: state.path }),
    ]);
    expect([flag.exitCode, word.exitCode]).toEqual([0, 0]);
    const help = text(flag.stdout);
    expect(text(word.stdout)).toBe(help);
    expect(help).toMatch(new RegExp(`^USAGE derun ${name}( |$)`, "m"));
    expect(help).toMatch(/^EXAMPLES\n\n {2}\S/m);
    expect(help).not.toMatch(/[ \t]$/m);
    expect(help).not.toContain("\x1b[");
  });

  test("run's usage line names the command after --; the main help lists every command", async () => {
    using state = tempDir();
    expect(text((await runDerun(["run", "--help"], { stateRoot: state.path })).stdout)).toMatch(
      /^USAGE derun run \[OPTIONS\] -- <command> \[args\.\.\.\]$/m,
    );
    const main = text((await runDerun(["--help"], { stateRoot: state.path })).stdout);
    for (const name of names) expect(main).toMatch(new RegExp(`^ +${name} {4}\\S`, "m"));
    expect(main).not.toMatch(/[ \t]$/m);
  });

  test("colour on a terminal, none with NO_COLOR", async () => {
    using state = tempDir();
    for (const noColor of ["", "1"]) {
      const run = spawnInPty([...derunArgv(), "tail", "--help"], { env: derunEnv(state.path, { NO_COLOR: noColor }) });
      await run.exited;
      expect(text(run.output()).includes("\x1b[")).toBe(noColor === "");
    }
  });

  test("-V, --version and version print the version; help for an unknown command is a usage error", async () => {
    using state = tempDir();
    const pkg = await Bun.file(new URL("../../package.json", import.meta.url)).json();
    for (const args of [["-V"], ["--version"], ["version"]]) {
      const done = await runDerun(args, { stateRoot: state.path });
      expect([done.exitCode, text(done.stdout)]).toEqual([0, `${pkg.version}\n`]);
    }
    const unknown = await runDerun(["help", "tial"], { stateRoot: state.path });
    expect([unknown.exitCode, text(unknown.stderr).split("\n")[0]]).toEqual([2, 'derun: unknown command "tial" (did you mean "tail"?)']);
  });

  test("help is listed among the commands, and derun help help explains it", async () => {
    using state = tempDir();
    const main = text((await runDerun(["--help"], { stateRoot: state.path })).stdout);
    expect(main).toMatch(/^ +help +Show the help of derun, or of one command \(derun help <command>\)\.$/m);
    const help = await runDerun(["help", "help"], { stateRoot: state.path });
    expect(help.exitCode).toBe(0);
    expect(text(help.stdout)).toMatch(/^USAGE derun help \[<command>\]$/m);
    const flag = await runDerun(["help", "--help"], { stateRoot: state.path });
    expect([flag.exitCode, text(flag.stdout)]).toEqual([0, text(help.stdout)]);
  });
});
