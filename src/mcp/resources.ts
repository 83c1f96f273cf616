/**
 * Sessions and their commands as MCP resources, so a person can @-mention "my last failure" in a
 * client: a thin layer over the same queries the tools serve (tools stay the contract; a resource
 * reads what the matching tool call answers).
 *
 * derun://session/{id}                 the session's last lines (derun_read_text)
 * derun://session/{id}/command/{n}     one command of a shell session (derun_read_text command=n)
 * derun://last                         the newest session
 * derun://last-failure                 the newest failure explained (derun_last_failure)
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  type Resource,
  type ResourceTemplateType as ResourceTemplate,
} from "@modelcontextprotocol/server";
import { DerunError, describeError } from "../core/errors.ts";
import type { Store } from "../core/store.ts";
import lastFailure from "../tools/last-failure.ts";
import listCommands from "../tools/list-commands.ts";
import listSessions from "../tools/list-sessions.ts";
import readText from "../tools/read-text.ts";
import { commandLine, oneLine, outcome } from "../transcript/index.ts";
import { checkArguments } from "./arguments.ts";

/** MCP's code for a resource that does not exist. */
const RESOURCE_NOT_FOUND = -32002;
/** Sessions and commands listed at most (the newest); templates reach the rest. */
const LISTED_SESSIONS = 50;
const LISTED_COMMANDS = 20;

export type ResourceTarget =
  | { readonly kind: "session"; readonly sessionId: string; readonly command?: number | "last" }
  | { readonly kind: "last" }
  | { readonly kind: "last-failure" };

export const sessionUri = (id: string, command?: number): string =>
  `derun://session/${encodeURIComponent(id)}${command === undefined ? "" : `/command/${command}`}`;

/** What a derun:// URI names; a ProtocolError InvalidParams for any other. */
export function parseResourceUri(uri: string): ResourceTarget {
  if (uri === "derun://last") return { kind: "last" };
  if (uri === "derun://last-failure") return { kind: "last-failure" };
  const m = /^derun:\/\/session\/([^/]+)(?:\/command\/([1-9][0-9]{0,14}|last))?$/.exec(uri);
  if (!m)
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `unknown resource: ${oneLine(uri, 200)} (derun://session/{id}, derun://session/{id}/command/{n}, derun://last, derun://last-failure)`,
    );
  let sessionId: string;
  try {
    sessionId = decodeURIComponent(m[1]!);
  } catch {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown resource: ${oneLine(uri, 200)} (bad escape)`);
  }
  const command = m[2] === undefined ? undefined : m[2] === "last" ? ("last" as const) : Number(m[2]);
  return { kind: "session", sessionId, ...(command === undefined ? {} : { command }) };
}

export const RESOURCE_TEMPLATES: ResourceTemplate[] = [
  {
    uriTemplate: "derun://session/{id}",
    name: "session",
    title: "A recorded session",
    description: "Its last lines and how it ended.",
    mimeType: "text/plain",
  },
  {
    uriTemplate: "derun://session/{id}/command/{n}",
    name: "command",
    title: "A shell command",
    description: "One command of a derun shell session: its output and exit status.",
    mimeType: "text/plain",
  },
];

/** The fixed resources, then the newest commands and sessions. */
export async function listResources(store: Store, signal: AbortSignal): Promise<Resource[]> {
  const context = { store, signal };
  const fixed: Resource[] = [
    {
      uri: "derun://last-failure",
      name: "last-failure",
      title: "My last failure",
      description: "The newest failed command or session, explained: its error lines, then its last lines.",
      mimeType: "text/plain",
    },
    {
      uri: "derun://last",
      name: "last",
      title: "My last session",
      description: "The newest recorded session's last lines.",
      mimeType: "text/plain",
    },
  ];
  const { commands } = await listCommands.handler({ limit: LISTED_COMMANDS }, context);
  const { sessions } = await listSessions.handler({ limit: LISTED_SESSIONS }, context);
  return [
    ...fixed,
    ...commands.map((c) => ({
      uri: sessionUri(c.session_id, c.number),
      name: `${c.session_id}#${c.number}`,
      title: c.command_line === null ? `command ${c.number}` : oneLine(c.command_line, 80),
      description:
        `command ${c.number} of session ${c.session_id}: ` +
        `${c.running ? "running" : c.exit_code === null ? "no exit status" : `exit ${c.exit_code}`}`,
      mimeType: "text/plain",
    })),
    ...sessions.map((s) => ({
      uri: sessionUri(s.session_id),
      name: s.session_id,
      title: commandLine(s.command, 80),
      description: `session ${s.session_id}: ${outcome(s)}`,
      mimeType: "text/plain",
    })),
  ];
}

/** The text a resource reads: the matching tool's answer, as a model reads it. */
export async function readResource(store: Store, uri: string, signal: AbortSignal): Promise<string> {
  const target = parseResourceUri(uri);
  const context = { store, signal };
  try {
    if (target.kind === "last-failure") return lastFailure.render(await lastFailure.handler({}, context));
    const input =
      target.kind === "last"
        ? { session_id: "last" }
        : { session_id: target.sessionId, ...(target.command === undefined ? {} : { command: target.command }) };
    const checked = checkArguments(readText, input);
    if ("refused" in checked) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown resource: ${oneLine(uri, 200)}`);
    return readText.render(await readText.handler(checked.input as Parameters<typeof readText.handler>[0], context));
  } catch (error) {
    if (error instanceof DerunError && (error.code === "session_not_found" || error.code === "invalid_argument"))
      throw new ProtocolError(RESOURCE_NOT_FOUND, describeError(error), { uri });
    throw error;
  }
}
