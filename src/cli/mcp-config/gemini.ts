/**
 * Gemini CLI: a `gemini mcp add` line (user scope), or `--json` for `~/.gemini/settings.json`, an
 * `mcpServers` map of { command, args, env }.
 * Format: https://github.com/google-gemini/gemini-cli/blob/main/docs/tools/mcp-server.md
 * ("mcpServers": command, args, env; `gemini mcp add [options] <name> <commandOrUrl> [args...]`).
 */
import { shellLine } from "./quote.ts";
import { envField, envWords, SERVER_NAME, type McpClient, type McpLaunch } from "./types.ts";

export const gemini: McpClient = {
  title: "Gemini CLI",
  where:
    "run it in a shell (again: it updates derun), or derun mcp config gemini --merge ~/.gemini/settings.json; " +
    "`gemini mcp list` then shows derun as connected",
  // Gemini CLI leaves MCP servers off in a folder it does not trust ("Disabled" in `gemini mcp list`).
  hint: () =>
    "in a folder Gemini CLI does not trust, derun shows as Disabled: trust the folder when gemini asks on its first start there, or " +
    "with /permissions inside gemini (choices are kept in ~/.gemini/trustedFolders.json)",
  text: (launch: McpLaunch) =>
    shellLine(
      ["gemini", "mcp", "add", "--scope", "user", ...envWords(launch, "-e"), SERVER_NAME, launch.command, ...launch.args],
      launch.platform,
    ),
  json: (launch: McpLaunch) => ({
    mcpServers: { [SERVER_NAME]: { command: launch.command, args: launch.args, ...envField(launch) } },
  }),
  merges: true,
};
