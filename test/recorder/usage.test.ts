/**
 * Usage errors: exit 2, one clear line on stderr, nothing on stdout, nothing written to the state root.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runDerun, tempDir, text } from "../helpers/cli.ts";

const cases: [string, string[], RegExp][] = [
  ["unknown flag", ["run", "--bogus", "--", "echo", "hi"], /unknown option "--bogus"/],
  ["unknown flag with a value", ["run", "--bogus=1", "--", "echo"], /unknown option "--bogus"$/],
  ["unknown short flag", ["run", "-x", "--", "echo"], /unknown option "-x"/],
  ["flag without its value", ["run", "--session-id", "--", "echo"], /option "--session-id" needs a value/],
  ["flag followed by another flag", ["run", "--retention", "--session-id=a", "--", "echo"], /option "--retention" needs a value/],
  ["bad value in the = form", ["run", "--retention=0s", "--", "echo"], /must be positive/],
  ["missing --", ["run", "echo", "hi"], /missing "--"/],
  ["missing command", ["run", "--"], /missing the command/],
  ["nothing at all", ["run"], /missing "--"/],
  ["sub-second retention 500ms", ["run", "--retention", "500ms", "--", "echo"], /whole number of seconds/],
  ["sub-second retention 1500ms", ["run", "--retention", "1500ms", "--", "echo"], /whole number of seconds/],
  ["zero retention", ["run", "--retention", "0s", "--", "echo"], /must be positive/],
  ["session id '.'", ["run", "--session-id", ".", "--", "echo"], /invalid session id/],
  ["session id '..'", ["run", "--session-id", "..", "--", "echo"], /invalid session id/],
  ["session id with a separator", ["run", "--session-id", "a/b", "--", "echo"], /invalid session id/],
  ["session id too long", ["run", "--session-id", "a".repeat(129), "--", "echo"], /invalid session id/],
  ["unknown command", ["frobnicate"], /unknown command "frobnicate"/],
  ["no command", [], /missing command/],
  ["a flag for mcp", ["mcp", "--bogus"], /unknown option "--bogus"/],
  ["an argument for mcp", ["mcp", "serve"], /derun mcp takes no arguments \(got "serve"\)/],
  ["a typo of a command", ["lss"], /unknown command "lss" \(did you mean "ls"\?\)/],
  ["a typo of a flag", ["run", "--sesion-id", "x", "--", "true"], /unknown option "--sesion-id" \(did you mean "--session-id"\?\)/],
  ["session id 'last' (it names the newest session)", ["run", "--session-id", "last", "--", "echo"], /invalid session id "last"/],
  ["an empty --state-root", ["run", "--state-root=", "--", "echo"], /--state-root" needs a directory/],
  ["unbounded input is quoted bounded", ["x".repeat(5000)], /unknown command "x{100}…"$/],
  ["a command for mcp", ["mcp", "--", "echo"], /derun mcp takes no arguments/],
];

describe("derun usage errors", () => {
  test.each(cases)("%s: exit 2, one line, nothing written", async (_name, args, message) => {
    using state = tempDir();
    const result = await runDerun(args, { stateRoot: state.path });
    expect(result.exitCode).toBe(2);
    expect(result.stdout.length).toBe(0);
    const firstLine = text(result.stderr).split("\n")[0]!;
    expect(firstLine).toMatch(/^derun: /);
    expect(firstLine).toMatch(message);
    expect(readdirSync(state.path)).toEqual([]);
  });

  test("an existing --session-id is refused and its artifacts stay untouched", async () => {
    using state = tempDir();
    const first = await runDerun(["run", "--session-id", "build-1", "--", "echo", "first"], { stateRoot: state.path });
    expect(first.exitCode).toBe(0);
    const dir = join(state.path, "sessions", "build-1");
    const before = Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), "utf8")]));

    const second = await runDerun(["run", "--session-id", "build-1", "--", "echo", "second"], { stateRoot: state.path });
    expect(second.exitCode).toBe(2);
    expect(text(second.stderr)).toMatch(/^derun: session already exists: build-1$/m);
    expect(second.stdout.length).toBe(0); // the command did not run
    const after = Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), "utf8")]));
    expect(after).toEqual(before);
  });

  test("a session dir holding only final.json also counts as existing", async () => {
    using state = tempDir();
    const dir = join(state.path, "sessions", "leftover");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, "final.json"), "{}", { mode: 0o600 });
    const result = await runDerun(["run", "--session-id", "leftover", "--", "echo", "x"], { stateRoot: state.path });
    expect(result.exitCode).toBe(2);
    expect(readFileSync(join(dir, "final.json"), "utf8")).toBe("{}");
    expect(existsSync(join(dir, "meta.json"))).toBe(false);
  });

  test("arguments after -- belong to the command, even --help", async () => {
    using state = tempDir();
    const result = await runDerun(["run", "--", "sh", "-c", 'printf "%s|" "$@"', "sh", "--help", "--bogus", "--"], {
      stateRoot: state.path,
    });
    expect(result.exitCode).toBe(0);
    expect(text(result.stdout)).toBe("--help|--bogus|--|");
  });

  test("--version prints the package version and --help lists the commands", async () => {
    using state = tempDir();
    const pkg = await Bun.file(join(import.meta.dir, "../../package.json")).json();
    const version = await runDerun(["--version"], { stateRoot: state.path });
    expect(text(version.stdout).trim()).toBe(pkg.version);
    const help = await runDerun(["--help"], { stateRoot: state.path, env: { NO_COLOR: "" } });
    expect(help.exitCode).toBe(0);
    expect(text(help.stdout)).toMatch(/run\s+.*Run a command/);
    expect(text(help.stdout)).toMatch(/mcp\s+/);
    expect(text(help.stdout)).not.toMatch(/\x1b\[/); // no colour codes when stdout is not a terminal
  });

  test("flags take their value after = or as the next argument, the last one winning", async () => {
    using state = tempDir();
    const result = await runDerun(
      ["run", "--retention", "1h", "--session-id=first", "--retention=90m", "--session-id", "eq-form", "--", "true"],
      { stateRoot: state.path },
    );
    expect(result.exitCode).toBe(0);
    const meta = JSON.parse(readFileSync(join(state.path, "sessions", "eq-form", "meta.json"), "utf8"));
    expect(meta.retention_seconds).toBe(5400);
    expect(existsSync(join(state.path, "sessions", "first"))).toBe(false);
  });

  test("--help of each command shows its own usage, flags included", async () => {
    using state = tempDir();
    const run = await runDerun(["run", "--help"], { stateRoot: state.path });
    expect(run.exitCode).toBe(0);
    expect(text(run.stdout)).toMatch(/derun run/);
    expect(text(run.stdout)).toMatch(/--session-id/);
    expect(text(run.stdout)).toMatch(/--retention/);
    const mcp = await runDerun(["mcp", "--help"], { stateRoot: state.path });
    expect(mcp.exitCode).toBe(0);
    expect(text(mcp.stdout)).toMatch(/derun mcp/);
    expect(readdirSync(state.path)).toEqual([]);
  });
});
