/**
 * `derun mcp config <client> [--json]`: prints that client's configuration for this machine (the
 * absolute command that starts this derun's `derun mcp`, and the state root in use) on stdout,
 * ready to paste, and one line on stderr saying where it goes.
 */
import { DerunError } from "../../core/errors.ts";
import { exitWith, type CommandData, type ExitRequest } from "../command.ts";
import { parseFlags } from "../flags.ts";
import { STATE_ROOT_FLAG, stateRootFrom } from "../state-root.ts";
import { jsonText } from "./quote.ts";
import { currentLaunch, isMcpClientName, mcpClientNames, mcpClients } from "./index.ts";

const FLAGS = {
  json: { type: "boolean", description: "The client's own JSON shape, where it has one." },
  "state-root": { ...STATE_ROOT_FLAG, description: "The state root the client's derun mcp reads (default: this environment's)." },
} as const;

export async function runMcpConfig(flags: readonly string[], data: CommandData): Promise<ExitRequest> {
  const known = `known clients: ${mcpClientNames.join(", ")}`;
  const { values, positionals } = parseFlags(flags, FLAGS);
  const [name, extra = data.command ? "--" : undefined] = positionals;
  if (name === undefined) throw new DerunError("usage", `derun mcp config needs a client (${known})`);
  if (!isMcpClientName(name)) throw new DerunError("usage", `unknown MCP client ${quoted(name)} (${known})`);
  if (extra !== undefined) throw new DerunError("usage", `derun mcp config takes one client and --json (got ${quoted(extra)})`);
  const client = mcpClients[name];
  const root = values["state-root"];
  const launch = currentLaunch(root === undefined ? process.env : { ...process.env, DERUN_STATE_ROOT: stateRootFrom(root) });
  if (values.json && !client.json) throw new DerunError("usage", `${client.title} has no JSON configuration: run derun mcp config ${name}`);
  const text = values.json && client.json ? jsonText(client.json(launch)) : client.text(launch);
  process.stdout.write(`${text}\n`);
  process.stderr.write(
    `derun: ${client.title}: ${client.where}. derun mcp must read the state root your derun run writes: ${launch.stateRoot}\n`,
  );
  return exitWith(0);
}

const quoted = (arg: string) => JSON.stringify(arg.length > 100 ? `${arg.slice(0, 100)}...` : arg);
