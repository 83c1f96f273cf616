import { defineCommand } from "citty";
import { openLogSink } from "../../core/log-sink.ts";
import { openStore, resolveStateRoot } from "../../core/store/index.ts";
import { serveStdio } from "../../mcp/stdio.ts";
import type { CommandOutcome } from "../main.ts";

export default defineCommand({
  meta: {
    name: "mcp",
    description:
      "Serve the recorded sessions to an AI agent over MCP on stdin/stdout (read-only). State root: DERUN_STATE_ROOT, else XDG_STATE_HOME/derun, else ~/.local/state/derun.",
  },
  async run(): Promise<CommandOutcome> {
    const root = resolveStateRoot(process.env);
    const log = openLogSink(root, { component: "mcp" });
    await serveStdio({ store: openStore({ root, log }), log });
    return { exitCode: 0 };
  },
});
