/**
 * VS Code: `.vscode/mcp.json` (or the user profile's mcp.json), a `servers` map whose stdio entries
 * carry `"type": "stdio"`, `command`, `args` and `env`.
 * Format: https://code.visualstudio.com/docs/copilot/reference/mcp-configuration ("servers"; stdio
 * fields type, command, args, env, envFile).
 */
import { jsonText } from "./quote.ts";
import { envField, SERVER_NAME, type McpClient, type McpLaunch } from "./types.ts";

const json = (launch: McpLaunch) => ({
  servers: { [SERVER_NAME]: { type: "stdio", command: launch.command, args: launch.args, ...envField(launch) } },
});

export const vscode: McpClient = {
  title: "VS Code",
  where:
    'merge it into .vscode/mcp.json (this workspace) or the mcp.json of your user profile ("MCP: Open User Configuration"), ' +
    "beside the servers there: derun mcp config vscode --merge .vscode/mcp.json does it " +
    "(makes the file if absent, replaces derun if there)",
  text: (launch) => jsonText(json(launch)),
  json,
  merges: true,
};
