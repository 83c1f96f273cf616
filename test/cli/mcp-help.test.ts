/**
 * `config` is a sub-command of `derun mcp`, not a positional argument (issue 43): the help of
 * `derun mcp` lists it under COMMANDS, `derun mcp config --help` is its own help (its client
 * argument and its flags), and the completion scripts offer it as a command with its description.
 */
import { expect, test } from "bun:test";
import { runDerun, tempDir, text } from "../helpers/cli.ts";

const derun = async (...args: string[]) => {
  using state = tempDir();
  const done = await runDerun(args, { stateRoot: state.path });
  expect([done.exitCode, text(done.stderr)]).toEqual([0, ""]);
  return text(done.stdout);
};

test("derun mcp --help lists config as a command, not as an argument", async () => {
  const help = await derun("mcp", "--help");
  expect(help).not.toContain("CONFIG");
  expect(help).not.toContain("ARGUMENTS");
  expect(help).toMatch(/^USAGE derun mcp \[options\]\n +derun mcp config \[<client>\]/m);
  expect(help).toMatch(/^COMMANDS\n\n {2}config {4}Print what an MCP client needs to start this derun mcp/m);
  expect(await derun("help", "mcp")).toBe(help);
});

test("derun mcp config --help is the sub-command's help: its client argument and its flags", async () => {
  for (const args of [
    ["mcp", "config", "--help"],
    ["mcp", "config", "-h"],
    ["help", "mcp", "config"],
  ]) {
    const help = await derun(...args);
    expect(help).toMatch(/^USAGE derun mcp config \[<client>\] \[--json \| --merge <file>\]/m);
    expect(help).toMatch(/^ {2}CLIENT {4}The MCP client: claude-code, claude-desktop, codex, cursor, vscode, gemini\./m);
    expect(help).toContain("--ssh=<[user@]host>");
    expect(help).not.toContain("--no-redact");
  }
});

test("completion offers config as a command of derun mcp, with its description", async () => {
  expect(await derun("completion", "zsh")).toContain(`'1:command:((config\\:"Print what an MCP client needs to start this derun mcp`);
  expect(await derun("completion", "fish")).toMatch(/__derun_using mcp; and not __derun_in_sub mcp config' -x -a 'config' -d 'Print what/);
});
