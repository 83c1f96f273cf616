/**
 * `derun mcp config <client> [--json] [--ssh <host> | --container <name>]`: prints that client's configuration for this machine (the
 * absolute command that starts this derun's `derun mcp`, and the state root in use) alone on stdout,
 * ready to paste or to redirect into the client's file, and on stderr where it goes (and the
 * client's hint). `derun mcp config` alone lists the clients. With --ssh or --container the
 * configuration starts `derun mcp` on that machine instead (./remote.ts).
 */
import path from "node:path";
import { DerunError } from "../../core/errors.ts";
import { exitWith, type CommandData, type ExitRequest } from "../command.ts";
import { parseFlags, type FlagDefs } from "../flags.ts";
import { STATE_ROOT_FLAG, stateRootFrom } from "../state-root.ts";
import { jsonText } from "./quote.ts";
import { currentLaunch, isMcpClientName, mcpClientNames, mcpClients } from "./index.ts";
import { mergeJsonFile } from "./merge.ts";
import { remoteLaunch, remoteTarget, remoteWhere } from "./remote.ts";

export const FLAGS = {
  json: { type: "boolean", description: "The client's own JSON shape, where it has one." },
  "state-root": {
    ...STATE_ROOT_FLAG,
    description:
      "The state root the client's derun mcp reads (default: this environment's; with --ssh or --container, that machine's default).",
  },
  ssh: {
    type: "string",
    valueHint: "[user@]host",
    description: "Start derun mcp on that host over ssh (ssh -T host derun mcp): for sessions recorded there.",
  },
  container: {
    type: "string",
    valueHint: "name",
    description: "Start derun mcp in that running container (docker exec -i name derun mcp).",
  },
  engine: {
    type: "enum",
    options: ["docker", "podman"],
    description: "The container engine for --container (default: docker if on PATH, else podman).",
  },
  scope: {
    type: "string",
    valueHint: "dir",
    complete: "dir",
    description: "The client's derun mcp serves only the sessions of this directory (derun mcp --scope).",
  },
  derun: { type: "string", valueHint: "path", description: "The derun command on the other machine (default: derun, found on its PATH)." },
  merge: {
    type: "string",
    valueHint: "file",
    complete: "file",
    description:
      "Put derun's entry into this configuration file of the client (made if absent), keeping its other servers and settings, " +
      "instead of printing it: e.g. ~/.cursor/mcp.json. Not for Claude Code and Codex, whose printed line does it.",
  },
} as const;

/** For help and completion: the client, then the flags. */
export const args = {
  client: {
    type: "positional",
    required: false,
    description: `The MCP client: ${mcpClientNames.join(", ")}. Without one, the list of clients.`,
    complete: mcpClientNames,
  },
  ...FLAGS,
} as const satisfies FlagDefs;

export const usage = "[<client>] [--json | --merge <file>] [--ssh <host> | --container <name>] [--state-root <dir>]";

export const examples = [
  "derun mcp config                        # the clients derun knows",
  "derun mcp config claude-code | sh       # registers derun with Claude Code (again: replaces it)",
  "derun mcp config cursor --merge ~/.cursor/mcp.json   # adds derun, keeps the other servers",
  "derun mcp config codex --ssh me@build-box",
];

export async function run(flags: readonly string[], data: CommandData): Promise<ExitRequest> {
  const known = `known clients: ${mcpClientNames.join(", ")}`;
  const { values, positionals } = parseFlags(flags, FLAGS);
  const [name, extra = data.command ? "--" : undefined] = positionals;
  if (name === undefined) return listClients();
  if (!isMcpClientName(name)) throw new DerunError("usage", `unknown MCP client ${quoted(name)} (${known})`);
  if (extra !== undefined) throw new DerunError("usage", `derun mcp config takes one client and its flags (got ${quoted(extra)})`);
  const client = mcpClients[name];
  const root = values["state-root"];
  if (values.json && !client.json) throw new DerunError("usage", `${client.title} has no JSON configuration: run derun mcp config ${name}`);
  const target = remoteTarget(values, process.env);
  if (root === "") throw new DerunError("usage", 'option "--state-root" needs a directory');
  if (values.scope === "") throw new DerunError("usage", 'option "--scope" needs a directory');
  // Here a local directory is made absolute (a client starts its server anywhere); on another machine it is that machine's.
  const scope = values.scope === undefined ? undefined : target ? values.scope : path.resolve(values.scope);
  if (values.derun !== undefined && (target === undefined || values.derun === ""))
    throw new DerunError("usage", "--derun names the derun on another machine: give it with --ssh or --container");
  const remote = target && {
    derun: values.derun ?? "derun",
    ...(root === undefined ? {} : { stateRoot: root }),
    ...(scope === undefined ? {} : { scope }),
    env: process.env,
    platform: process.platform,
  };
  const local = () => {
    const here = currentLaunch(root === undefined ? process.env : { ...process.env, DERUN_STATE_ROOT: stateRootFrom(root) });
    return scope === undefined ? here : { ...here, args: [...here.args, "--scope", scope] };
  };
  const launch = target && remote ? remoteLaunch(target, remote) : local();
  const reads =
    target && remote ? remoteWhere(target, remote) : `derun mcp must read the state root your derun run writes: ${launch.stateRoot}`;
  if (values.merge !== undefined) {
    if (!client.merges || !client.json)
      throw new DerunError("usage", `${client.title} has no file for --merge: run the line derun mcp config ${name} prints`);
    const done = mergeJsonFile(values.merge, client.json(launch) as Record<string, unknown>);
    process.stderr.write(`derun: ${client.title}: derun ${done} in ${values.merge}, everything else in it kept. ${reads}\n`);
    return exitWith(0);
  }
  const text = values.json && client.json ? jsonText(client.json(launch)) : client.text(launch);
  process.stdout.write(`${text}\n`);
  const hint = client.hint ? `derun: ${client.hint(launch)}\n` : "";
  process.stderr.write(`derun: ${client.title}: ${client.where}. ${reads}\n${hint}`);
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
