/**
 * `derun mcp config <client> [--json]`: prints that client's configuration for this machine (the
 * absolute command that starts this derun's `derun mcp`, and the state root in use) alone on stdout,
 * ready to paste or to redirect into the client's file, and on stderr where it goes (and the
 * client's hint). `derun mcp config` alone lists the clients.
 */
import { DerunError } from "../../core/errors.ts";
import { exitWith, type CommandData, type ExitRequest } from "../command.ts";
import { parseFlags } from "../flags.ts";
import { STATE_ROOT_FLAG, stateRootFrom } from "../state-root.ts";
import { jsonText } from "./quote.ts";
import { currentLaunch, isMcpClientName, mcpClientNames, mcpClients } from "./index.ts";

export const FLAGS = {
  json: { type: "boolean", description: "The client's own JSON shape, where it has one." },
  "state-root": { ...STATE_ROOT_FLAG, description: "The state root the client's derun mcp reads (default: this environment's)." },
} as const;

export async function runMcpConfig(flags: readonly string[], data: CommandData): Promise<ExitRequest> {
  const known = `known clients: ${mcpClientNames.join(", ")}`;
  const { values, positionals } = parseFlags(flags, FLAGS);
  const [name, extra = data.command ? "--" : undefined] = positionals;
  if (name === undefined) return listClients();
  if (!isMcpClientName(name)) throw new DerunError("usage", `unknown MCP client ${quoted(name)} (${known})`);
  if (extra !== undefined) throw new DerunError("usage", `derun mcp config takes one client and --json (got ${quoted(extra)})`);
  const client = mcpClients[name];
  const root = values["state-root"];
  const launch = currentLaunch(root === undefined ? process.env : { ...process.env, DERUN_STATE_ROOT: stateRootFrom(root) });
  if (values.json && !client.json) throw new DerunError("usage", `${client.title} has no JSON configuration: run derun mcp config ${name}`);
  const text = values.json && client.json ? jsonText(client.json(launch)) : client.text(launch);
  process.stdout.write(`${text}\n`);
  const hint = client.hint ? `derun: ${client.hint(launch)}\n` : "";
  process.stderr.write(
    `derun: ${client.title}: ${client.where}. derun mcp must read the state root your derun run writes: ${launch.stateRoot}\n${hint}`,
  );
  return exitWith(0);
}

/** The clients, one a line (name, then title), on stdout; how to use one on stderr. */
function listClients(): ExitRequest {
  const width = Math.max(...mcpClientNames.map((name) => name.length));
  process.stdout.write(mcpClientNames.map((name) => `${name.padEnd(width)}  ${mcpClients[name].title}\n`).join(""));
  process.stderr.write("derun: derun mcp config <client> prints what that client needs to start derun mcp\n");
  return exitWith(0);
}

const quoted = (arg: string) => JSON.stringify(arg.length > 100 ? `${arg.slice(0, 100)}...` : arg);
