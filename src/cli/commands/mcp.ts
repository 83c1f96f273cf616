/** `derun mcp`: the MCP server on stdin/stdout until stdin closes; `derun mcp config <client>` prints a client's configuration. */
import type { CommandDef } from "citty";
import { DerunError } from "../../core/errors.ts";
import { openLogSink } from "../../core/log-sink.ts";
import { openStore, resolveStateRoot } from "../../core/store/index.ts";
import { serveStdio } from "../../mcp/stdio.ts";
import type { CommandData, CommandOutcome } from "../main.ts";
import { commandMeta } from "./meta.ts";

export const usage: CommandDef = {
  meta: {
    ...commandMeta.mcp,
    description: `${commandMeta.mcp.description}\n\nderun mcp config <client> [--json] prints what an MCP client needs to start this derun mcp (derun mcp config alone lists the clients).`,
  },
};

export async function run(flags: readonly string[], data: CommandData): Promise<CommandOutcome> {
  if (flags[0] === "config") return (await import("../mcp-config/command.ts")).runMcpConfig(flags.slice(1), data);
  const extra = flags[0] ?? (data.command ? "--" : undefined);
  if (extra !== undefined) throw new DerunError("usage", `derun mcp takes no arguments (got ${JSON.stringify(extra)})`);
  const root = resolveStateRoot(process.env);
  const log = openLogSink(root, { component: "mcp" });
  await serveStdio({ store: openStore({ root, log }), log });
  return { exitCode: 0 };
}
