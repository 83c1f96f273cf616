/** `derun mcp`: the MCP server on stdin/stdout until stdin closes; `derun mcp config <client>` prints a client's configuration. */
import type { ArgsDef } from "citty";
import { DerunError } from "../../core/errors.ts";
import { openLogSink } from "../../core/log-sink.ts";
import { openFileStore, resolveStateRoot } from "../../core/file-store/index.ts";
import { serveStdio } from "../../mcp/stdio.ts";
import { exitWith, type CommandData, type ExitRequest } from "../command.ts";

/** For `--help` only: `config` is handled before anything else parses. */
export const args = {
  config: {
    type: "positional",
    required: false,
    description: "derun mcp config <client> [--json] prints what that MCP client needs to start this derun mcp; derun mcp config alone lists the clients.",
  },
} as const satisfies ArgsDef;

export async function run(flags: readonly string[], data: CommandData): Promise<ExitRequest> {
  if (flags[0] === "config") return (await import("../mcp-config/command.ts")).runMcpConfig(flags.slice(1), data);
  const extra = flags[0] ?? (data.command ? "--" : undefined);
  if (extra !== undefined) throw new DerunError("usage", `derun mcp takes no arguments (got ${JSON.stringify(extra)})`);
  const root = resolveStateRoot(process.env);
  const log = openLogSink(root, { component: "mcp" });
  await serveStdio({ store: openFileStore({ root, log }), log });
  return exitWith(0);
}
