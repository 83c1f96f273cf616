/**
 * The calls that wait (a long poll lasts up to a minute) are bounded by their own count, not held
 * in line with the other calls: held, a thousand waits would keep every later line (a ping, a
 * cancel, the end of input) unread for as long as they last. Past MAX_WAITS pending, a further wait
 * is answered at once with a tool error naming the cap, and the line reads on.
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { SCHEMA_VERSION } from "../core/enums.ts";

/** Waits pending at once, across every session; an agent has a few long polls out at most. */
export const MAX_WAITS = 32;

/** The tools that may answer only after a long wait. */
const WAIT_TOOLS: ReadonlySet<string> = new Set(["derun_wait_command", "derun_wait_output"]);

/** Whether `message` is a call of a wait tool. */
export const isWait = (message: JSONRPCMessage): boolean =>
  "method" in message &&
  "id" in message &&
  message.method === "tools/call" &&
  typeof message.params?.name === "string" &&
  WAIT_TOOLS.has(message.params.name);

/** The answer to a wait past the cap: a tool result with isError, as every tool failure is (docs/mcp.md). */
export const waitRefusal = (id: string | number, name: string): JSONRPCMessage => {
  const message =
    `too many waits pending: at most ${MAX_WAITS} derun_wait_command/derun_wait_output calls wait at once; ` +
    `cancel one or let one end, then call ${name} again`;
  return {
    jsonrpc: "2.0",
    id,
    result: {
      isError: true,
      content: [{ type: "text", text: message }],
      structuredContent: { schema_version: SCHEMA_VERSION, error: { code: "too_many_waits", message } },
    },
  };
};
