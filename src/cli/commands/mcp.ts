/** `derun mcp`: the MCP server on stdin/stdout until stdin closes; `derun mcp config <client>` prints a client's configuration. */
import * as fs from "node:fs";
import * as path from "node:path";
import { openLogSink } from "../../file-store/log-sink.ts";
import { openFileStore } from "../../file-store/index.ts";
import { readStoragePolicy } from "../../settings/storage.ts";
import { exitWith, type CommandData, type CommandEntry, type ExitRequest } from "../command.ts";
import { parseFlags, type FlagDefs } from "../flags.ts";
import { readableStateRoot, STATE_ROOT_FLAG } from "../state-root.ts";
import { NO_REDACT_FLAG } from "../redact-flag.ts";
import { shown, usageError } from "../usage.ts";

export const args = {
  "no-redact": {
    ...NO_REDACT_FLAG,
    description:
      "Serve secrets as recorded instead of masked. Only for a person who means it: the agent then reads every token the terminal showed.",
  },
  scope: {
    type: "string",
    valueHint: "dir",
    complete: "dir",
    description:
      "Serve only the sessions that worked under this directory (started there, or a command typed there in derun shell); " +
      "answers say how many others exist, never which.",
  },
  "state-root": STATE_ROOT_FLAG,
} as const satisfies FlagDefs;

/** Kernel buffer of the stdout pipe: a 1 MiB window's base64 answer (2.8 MB) still takes a few writes. */
const ANSWER_PIPE_BYTES = 1024 * 1024;

/** The scale of the server's tier-up thresholds (Bun.unsafe.setJITPolicy): see run(). */
const MCP_JIT_POLICY = 1000;

export const usage = "[options]\n      derun mcp config [<client>] [options]   (derun mcp config --help)";

/** `config` is a command of its own, handled before anything else parses. */
export const subCommands = {
  config: {
    description: "Print what an MCP client needs to start this derun mcp, or alone the list of clients.",
    load: () => import("../mcp-config/command.ts"),
  },
} satisfies Record<string, CommandEntry>;

export const examples = [
  "derun mcp config claude-code",
  "derun mcp config codex                     # the table, and the codex mcp add line that adds it",
  "derun mcp config cursor --merge ~/.cursor/mcp.json   # beside the other servers there",
  "derun mcp config cursor --ssh me@build-box     # sessions recorded on build-box",
  "derun mcp --state-root /tmp/derun     # serve another state root",
  "derun mcp --scope ~/work/client-a     # only the sessions of that project",
  "derun mcp --no-redact                 # secrets as recorded (never in the config snippets)",
];

export async function run(flags: readonly string[], data: CommandData): Promise<ExitRequest> {
  if (flags[0] === "config") return (await subCommands.config.load()).run(flags.slice(1), data);
  const { values, positionals } = parseFlags(flags, { "state-root": STATE_ROOT_FLAG, "no-redact": args["no-redact"], scope: args.scope });
  const extra = positionals[0] ?? (data.command ? "--" : undefined);
  if (extra !== undefined) throw usageError(`derun mcp takes no arguments (got ${shown(extra)})`);
  // Most of a server's code runs a few times (its start, each kind of request): compiled by the
  // runtime's higher tiers it held 15-20 MB resident for nothing. Tier-up thresholds 1000 times
  // higher keep it interpreted, while the loops that move bytes (search, reads) still tier up
  // within their first megabytes: a search of 1 GiB took the same time (docs/performance.md).
  Bun.unsafe.setJITPolicy(MCP_JIT_POLICY);
  const root = readableStateRoot(values["state-root"]);
  const scope = scopeDir(values.scope);
  // Before the server starts: a settings file that cannot be used stops it with a one-line error.
  const { agentView, configureRedaction, keepMaskMaps } = await import("../../transcript/index.ts");
  await configureRedaction({ enabled: !values["no-redact"] });
  keepMaskMaps(true); // search without a timing oracle (transcript/mask-map.ts)
  const storage = readStoragePolicy();
  const log = openLogSink(root, { component: "mcp" });
  // The SDK loads here, not when completion or help read this module's flags.
  const { serveStdio } = await import("../../mcp/stdio.ts");
  // A page of output is one answer of 90-180 KB: through a 64 KiB pipe it took several writes, each
  // waiting on the client (os/pipe-size.ts). Grown, the answer goes in one.
  (await import("../../os/pipe-size.ts")).growPipe(1, ANSWER_PIPE_BYTES);
  // Hidden sessions (derun hide) and, with --scope, those of other directories are not there for the agent.
  await serveStdio({ store: agentView(openFileStore({ root, log, storage }), { scope }), log });
  return exitWith(0);
}

/** `--scope`'s directory, absolute; it must be one (a typo would silently serve nothing). */
function scopeDir(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value === "") throw usageError('option "--scope" needs a directory');
  const dir = path.resolve(value);
  let isDir = false;
  try {
    isDir = fs.statSync(dir).isDirectory();
  } catch {
    // missing, or a file on the way: not a directory either way
  }
  if (!isDir) throw usageError(`--scope ${shown(value)} is not a directory`);
  return dir;
}
