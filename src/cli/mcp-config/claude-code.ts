/**
 * Claude Code: one `claude mcp add` line, user scope (derun's sessions are per machine, not per
 * project), after a `claude mcp remove` of derun: `claude mcp add` refuses a name that exists
 * ("already exists"), so the line pasted again replaces derun; on a fresh machine the remove fails
 * quietly (its error silenced) and the add goes on. The name comes before `-e`: `-e` takes several
 * values and would swallow the name.
 * Format: https://docs.anthropic.com/en/docs/claude-code/mcp ("claude mcp add [options] <name> --
 * <command> [args...]", `--env`/`-e`, `--scope user`); `--json` is what `claude mcp add-json` takes.
 */
import { shellLine } from "./quote.ts";
import { envField, envWords, SERVER_NAME, type McpClient, type McpLaunch } from "./types.ts";

export const claudeCode: McpClient = {
  title: "Claude Code",
  where: "run it in a shell (again: it replaces derun); `claude mcp list` then shows derun as connected",
  text: (launch: McpLaunch) => {
    const remove = shellLine(["claude", "mcp", "remove", "--scope", "user", SERVER_NAME], launch.platform);
    // POSIX shells and PowerShell both take `;`; PowerShell's null device is $null.
    const quiet = launch.platform === "win32" ? "2>$null" : "2>/dev/null";
    const add = shellLine(
      ["claude", "mcp", "add", "--scope", "user", SERVER_NAME, ...envWords(launch, "-e"), "--", launch.command, ...launch.args],
      launch.platform,
    );
    return `${remove} ${quiet}; ${add}`;
  },
  json: (launch: McpLaunch) => ({ type: "stdio", command: launch.command, args: launch.args, ...envField(launch) }),
};
