/**
 * Codex: a `codex mcp add` line, or the same server as a `[mcp_servers.derun]` table in
 * `~/.codex/config.toml`. Codex reads TOML only, so it has no `--json` shape.
 * Format: https://github.com/openai/codex/blob/main/docs/config.md (mcp_servers: command, args,
 * env) and `codex mcp add <name> [--env KEY=VALUE] -- <command>...`.
 */
import { shellLine, tomlString } from "./quote.ts";
import { SERVER_NAME, type McpClient, type McpLaunch } from "./types.ts";

/** The table for ~/.codex/config.toml. */
export const codexToml = (launch: McpLaunch): string =>
  [
    `[mcp_servers.${SERVER_NAME}]`,
    `command = ${tomlString(launch.command)}`,
    `args = [${launch.args.map(tomlString).join(", ")}]`,
    `env = { DERUN_STATE_ROOT = ${tomlString(launch.stateRoot)} }`,
  ].join("\n");

export const codex: McpClient = {
  title: "Codex",
  where: "run the command once, or put the table in ~/.codex/config.toml (either, not both)",
  text: (launch) =>
    [
      "# in a shell:",
      shellLine(["codex", "mcp", "add", SERVER_NAME, "--env", `DERUN_STATE_ROOT=${launch.stateRoot}`, "--", launch.command, ...launch.args], launch.platform),
      "",
      "# or in ~/.codex/config.toml:",
      codexToml(launch),
    ].join("\n"),
};
