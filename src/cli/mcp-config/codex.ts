/**
 * Codex: a `[mcp_servers.derun]` table for `~/.codex/config.toml`, alone on stdout so that it can go
 * straight into that file; the `codex mcp add` line that does the same is the hint on stderr. Codex
 * reads TOML only, so it has no `--json` shape.
 * Format: https://github.com/openai/codex/blob/main/docs/config.md (mcp_servers: command, args,
 * env) and `codex mcp add <name> [--env KEY=VALUE] -- <command>...`.
 */
import { shellLine, tomlString } from "./quote.ts";
import { envWords, SERVER_NAME, type McpClient, type McpLaunch } from "./types.ts";

/** The table for ~/.codex/config.toml. */
export const codexToml = (launch: McpLaunch): string =>
  [
    `[mcp_servers.${SERVER_NAME}]`,
    `command = ${tomlString(launch.command)}`,
    `args = [${launch.args.map(tomlString).join(", ")}]`,
    ...(launch.stateRoot === undefined ? [] : [`env = { DERUN_STATE_ROOT = ${tomlString(launch.stateRoot)} }`]),
  ].join("\n");

/** The `codex mcp add` line that writes the same table. */
export const codexAddLine = (launch: McpLaunch): string =>
  shellLine(["codex", "mcp", "add", SERVER_NAME, ...envWords(launch, "--env"), "--", launch.command, ...launch.args], launch.platform);

export const codex: McpClient = {
  title: "Codex",
  where: "append this table to ~/.codex/config.toml (derun mcp config codex >> ~/.codex/config.toml)",
  text: codexToml,
  hint: (launch) => `or, instead of the table, run once: ${codexAddLine(launch)}`,
};
