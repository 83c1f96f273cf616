/**
 * `derun mcp config <client>`: the MCP clients derun knows and their configuration printers. Loaded
 * only by that command, never by `derun run` or `derun mcp`.
 */
import { claudeCode } from "./claude-code.ts";
import { claudeDesktop } from "./claude-desktop.ts";
import { codex } from "./codex.ts";
import { cursor } from "./cursor.ts";
import { gemini } from "./gemini.ts";
import type { McpClient } from "./types.ts";
import { vscode } from "./vscode.ts";

export const mcpClients = {
  "claude-code": claudeCode,
  "claude-desktop": claudeDesktop,
  codex,
  cursor,
  vscode,
  gemini,
} as const satisfies Record<string, McpClient>;

export type McpClientName = keyof typeof mcpClients;

export const mcpClientNames = Object.keys(mcpClients) as McpClientName[];

export const isMcpClientName = (name: string): name is McpClientName => Object.hasOwn(mcpClients, name);

export { currentLaunch, launchOf, type Invocation } from "./launch.ts";
export type { McpClient, McpLaunch } from "./types.ts";
