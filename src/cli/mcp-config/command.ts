/**
 * `derun mcp config <client> [--json]`: prints that client's configuration for this machine (the
 * absolute command that starts this derun's `derun mcp`, and the state root in use) on stdout,
 * ready to paste, and one line on stderr saying where it goes.
 */
import { DerunError } from "../../core/errors.ts";
import { exitWith, type CommandData, type ExitRequest } from "../command.ts";
import { jsonText } from "./quote.ts";
import { currentLaunch, isMcpClientName, mcpClientNames, mcpClients } from "./index.ts";

const quoted = (arg: string) => JSON.stringify(arg.length > 100 ? `${arg.slice(0, 100)}...` : arg);

export async function runMcpConfig(flags: readonly string[], data: CommandData): Promise<ExitRequest> {
  const known = `known clients: ${mcpClientNames.join(", ")}`;
  const json = flags.includes("--json");
  const rest = flags.filter((flag) => flag !== "--json");
  const name = rest[0];
  const flag = rest.find((arg) => arg.startsWith("-"));
  if (flag !== undefined) throw new DerunError("usage", `derun mcp config: unknown flag ${quoted(flag)} (only --json)`);
  if (name === undefined) throw new DerunError("usage", `derun mcp config needs a client (${known})`);
  if (!isMcpClientName(name)) throw new DerunError("usage", `unknown MCP client ${quoted(name)} (${known})`);
  const extra = rest[1] ?? (data.command ? "--" : undefined);
  if (extra !== undefined) throw new DerunError("usage", `derun mcp config takes one client and --json (got ${quoted(extra)})`);
  const client = mcpClients[name];
  const launch = currentLaunch();
  if (json && !client.json) throw new DerunError("usage", `${client.title} has no JSON configuration: run derun mcp config ${name}`);
  const text = json && client.json ? jsonText(client.json(launch)) : client.text(launch);
  process.stdout.write(`${text}\n`);
  process.stderr.write(
    `derun: ${client.title}: ${client.where}. derun mcp must read the state root your derun run writes: ${launch.stateRoot}\n`,
  );
  return exitWith(0);
}
