/**
 * Claude Code: one `claude mcp add` line, user scope (derun's sessions are per machine, not per
 * project). The name comes before `-e`: `-e` takes several values and would swallow the name.
 * Format: https://docs.anthropic.com/en/docs/claude-code/mcp ("claude mcp add [options] <name> --
 * <command> [args...]", `--env`/`-e`, `--scope user`); `--json` is what `claude mcp add-json` takes.
 */
import { shellLine } from "./quote.ts";
import { envField, envWords, SERVER_NAME, type McpClient, type McpLaunch } from "./types.ts";

export const claudeCode: McpClient = {
  title: "Claude Code",
  where: "run it once in a shell; `claude mcp list` then shows derun as connected",
  text: (launch: McpLaunch) =>
    shellLine(
      ["claude", "mcp", "add", "--scope", "user", SERVER_NAME, ...envWords(launch, "-e"), "--", launch.command, ...launch.args],
      launch.platform,
    ),
  json: (launch: McpLaunch) => ({ type: "stdio", command: launch.command, args: launch.args, ...envField(launch) }),
};
