/**
 * Claude Desktop: `claude_desktop_config.json`, an `mcpServers` map of { command, args, env }. It
 * starts servers without a login shell, so the command is an absolute path.
 * Format: https://modelcontextprotocol.io/quickstart/user ("mcpServers", "command", "args", "env").
 */
import { jsonText } from "./quote.ts";
import { envField, SERVER_NAME, type McpClient, type McpLaunch } from "./types.ts";

const json = (launch: McpLaunch) => ({
  mcpServers: { [SERVER_NAME]: { command: launch.command, args: launch.args, ...envField(launch) } },
});

export const claudeDesktop: McpClient = {
  title: "Claude Desktop",
  where:
    "merge it into claude_desktop_config.json (macOS: ~/Library/Application Support/Claude/, Windows: %APPDATA%\\Claude\\), beside " +
    "the servers there (derun mcp config claude-desktop --merge <that file> does it), then restart Claude Desktop",
  text: (launch) => jsonText(json(launch)),
  json,
  merges: true,
};
