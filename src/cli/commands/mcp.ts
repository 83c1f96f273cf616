import { defineCommand } from "citty";
import { openLogSink } from "../../core/log-sink.ts";
import { openStore, resolveStateRoot } from "../../core/store/index.ts";
import { serveStdio } from "../../mcp/stdio.ts";
import type { CommandOutcome } from "../main.ts";
import { commandMeta } from "./meta.ts";

export default defineCommand({
  meta: commandMeta.mcp,
  async run(): Promise<CommandOutcome> {
    const root = resolveStateRoot(process.env);
    const log = openLogSink(root, { component: "mcp" });
    await serveStdio({ store: openStore({ root, log }), log });
    return { exitCode: 0 };
  },
});
