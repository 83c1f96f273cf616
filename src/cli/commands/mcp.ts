/** `derun mcp`: the MCP server on stdin/stdout until stdin closes; `derun mcp config <client>` prints a client's configuration. */
import { openLogSink } from "../../core/log-sink.ts";
import { openFileStore } from "../../core/file-store/index.ts";
import { readStoragePolicy } from "../../settings/storage.ts";
import { exitWith, type CommandData, type ExitRequest } from "../command.ts";
import { parseFlags, type FlagDefs } from "../flags.ts";
import { readableStateRoot, STATE_ROOT_FLAG } from "../state-root.ts";
import { NO_REDACT_FLAG } from "../redact-flag.ts";
import { shown, usageError } from "../usage.ts";

/** `config` is handled before anything else parses. */
export const args = {
  config: {
    type: "positional",
    required: false,
    description:
      "derun mcp config <client> [--json] prints what that MCP client needs to start this derun mcp (--ssh <host> or --container " +
      "<name>: the derun mcp of that machine); derun mcp config alone lists the clients.",
    complete: ["config"],
  },
  "no-redact": {
    ...NO_REDACT_FLAG,
    description:
      "Serve secrets as recorded instead of masked. Only for a person who means it: the agent then reads every token the terminal showed.",
  },
  "state-root": STATE_ROOT_FLAG,
} as const satisfies FlagDefs;

export const examples = [
  "derun mcp config claude-code",
  "derun mcp config codex >> ~/.codex/config.toml",
  "derun mcp config cursor --ssh me@build-box     # sessions recorded on build-box",
  "derun mcp --state-root /tmp/derun     # serve another state root",
  "derun mcp --no-redact                 # secrets as recorded (never in the config snippets)",
];

export async function run(flags: readonly string[], data: CommandData): Promise<ExitRequest> {
  if (flags[0] === "config") return (await import("../mcp-config/command.ts")).runMcpConfig(flags.slice(1), data);
  const { values, positionals } = parseFlags(flags, { "state-root": STATE_ROOT_FLAG, "no-redact": args["no-redact"] });
  const extra = positionals[0] ?? (data.command ? "--" : undefined);
  if (extra !== undefined) throw usageError(`derun mcp takes no arguments (got ${shown(extra)})`);
  const root = readableStateRoot(values["state-root"]);
  // Before the server starts: a settings file that cannot be used stops it with a one-line error.
  const { configureRedaction } = await import("../../transcript/index.ts");
  await configureRedaction({ enabled: !values["no-redact"] });
  const storage = readStoragePolicy();
  const log = openLogSink(root, { component: "mcp" });
  // The SDK loads here, not when completion or help read this module's flags.
  const { serveStdio } = await import("../../mcp/stdio.ts");
  await serveStdio({ store: openFileStore({ root, log, storage }), log });
  return exitWith(0);
}
