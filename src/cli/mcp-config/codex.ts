/**
 * Codex: a `[mcp_servers.derun]` table for `~/.codex/config.toml`, alone on stdout (the file's
 * content, as the JSON clients print theirs); the line to paste is the `codex mcp add` line on
 * stderr: it makes ~/.codex (or $CODEX_HOME) when Codex never ran and replaces a derun entry already
 * there, so it works on any machine, again. Appending the table (`>> ~/.codex/config.toml`) fails
 * without the directory and, the second time, makes a duplicate table that Codex refuses, so it is
 * not offered. Codex reads TOML only, so it has no `--json` shape.
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
  where: `this table goes in ~/.codex/config.toml, in place of a [mcp_servers.${SERVER_NAME}] table there already`,
  text: codexToml,
  hint: (launch) => `or run (it makes ~/.codex if Codex never ran, and adds or replaces derun there): ${codexAddLine(launch)}`,
};
