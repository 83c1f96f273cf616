/**
 * Cursor: `~/.cursor/mcp.json` (every project) or `.cursor/mcp.json` (one project), an `mcpServers`
 * map of { command, args, env } for a stdio server.
 * Format: https://docs.cursor.com/context/model-context-protocol ("mcpServers", "command", "args", "env").
 */
import { jsonText } from "./quote.ts";
import { envField, SERVER_NAME, type McpClient, type McpLaunch } from "./types.ts";

const json = (launch: McpLaunch) => ({
  mcpServers: { [SERVER_NAME]: { command: launch.command, args: launch.args, ...envField(launch) } },
});

export const cursor: McpClient = {
  title: "Cursor",
  where:
    "merge it into ~/.cursor/mcp.json (every project) or .cursor/mcp.json (this project), beside the servers there: " +
    "derun mcp config cursor --merge ~/.cursor/mcp.json does it (makes the file if absent, replaces derun if there)",
  text: (launch) => jsonText(json(launch)),
  json,
  merges: true,
};
