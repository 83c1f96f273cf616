/**
 * What `derun mcp` does with one line read from stdin, before the MCP SDK sees it: JSON-RPC 2.0
 * says every request with an id gets exactly one answer, but the SDK's stdio transport drops a line
 * it cannot parse or validate (invalid JSON, a batch, `params: 1`), and its Protocol answers a
 * request whose params fail its schema with -32603 and a multi-line dump. So each line is judged
 * here: a valid message goes on to the SDK; anything else gets its JSON-RPC error (-32700 parse
 * error, -32600 invalid request, -32602 invalid params), one bounded line; a broken notification or
 * response gets nothing, as JSON-RPC says.
 */
import { ClientRequestSchema, JSONRPCNotificationSchema, JSONRPCResponseSchema } from "@modelcontextprotocol/core";
import { ProtocolErrorCode as ErrorCode, type JSONRPCErrorResponse, type JSONRPCMessage } from "@modelcontextprotocol/server";
import { quote } from "../core/quote.ts";

export type LineVerdict =
  | { readonly kind: "message"; readonly message: JSONRPCMessage }
  | { readonly kind: "reply"; readonly reply: JSONRPCErrorResponse | NullIdError }
  | { readonly kind: "ignore" };

/** JSON-RPC 2.0's answer when the request's id could not be read: `id: null`. */
export interface NullIdError {
  readonly jsonrpc: "2.0";
  readonly id: null;
  readonly error: { readonly code: number; readonly message: string };
}

type RequestId = string | number;

/** The SDK's own schema of each client request, by method: the same one its handlers parse with. */
const requestSchemas = new Map<string, (typeof ClientRequestSchema.options)[number]>(
  ClientRequestSchema.options.map((schema) => [schema.shape.method.value as string, schema]),
);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isRequestId = (v: unknown): v is RequestId => typeof v === "string" || Number.isSafeInteger(v);

const reply = (id: RequestId | null, code: number, message: string): LineVerdict => ({
  kind: "reply",
  reply: { jsonrpc: "2.0", id, error: { code, message } } as JSONRPCErrorResponse | NullIdError,
});

/** Judge one line (without its newline). */
export function checkLine(line: string): LineVerdict {
  let value: unknown;
  try {
    value = JSON.parse(line.replace(/^\uFEFF/, ""));
  } catch {
    return reply(null, ErrorCode.ParseError, line.trim() === "" ? "Parse error: empty line" : "Parse error: not valid JSON");
  }
  if (Array.isArray(value))
    return reply(null, ErrorCode.InvalidRequest, "Invalid Request: batches are not supported; send one message per line");
  if (!isObject(value)) return reply(null, ErrorCode.InvalidRequest, "Invalid Request: a message must be a JSON object");
  if ("method" in value) return "id" in value ? checkRequest(value) : checkNotification(value);
  if ("result" in value || "error" in value) {
    // A response (to nothing derun asked, as derun asks nothing): never answered.
    return JSONRPCResponseSchema.safeParse(value).success ? { kind: "message", message: value as JSONRPCMessage } : { kind: "ignore" };
  }
  return reply(isRequestId(value.id) ? value.id : null, ErrorCode.InvalidRequest, "Invalid Request: no method");
}

function checkRequest(value: Record<string, unknown>): LineVerdict {
  const { id, method, params } = value;
  if (!isRequestId(id))
    return reply(null, ErrorCode.InvalidRequest, `Invalid Request: id must be a string or an integer (was ${quote(id)})`);
  if (value.jsonrpc !== "2.0")
    return reply(id, ErrorCode.InvalidRequest, `Invalid Request: jsonrpc must be "2.0" (was ${quote(value.jsonrpc)})`);
  if (typeof method !== "string")
    return reply(id, ErrorCode.InvalidRequest, `Invalid Request: method must be a string (was ${quote(method)})`);
  if (params !== undefined && !isObject(params))
    return reply(id, ErrorCode.InvalidParams, `Invalid params: params must be an object (was ${quote(params)})`);
  const schema = isPlainToolCall(method, params) ? undefined : requestSchemas.get(method);
  if (schema) {
    const parsed = schema.safeParse({ method, ...(params === undefined ? {} : { params }) });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? `${issue.path.join(".").slice(0, 100)}: ` : "";
      return reply(
        id,
        ErrorCode.InvalidParams,
        `Invalid params for ${method}: ${where}${(issue?.message ?? "invalid").split("\n")[0]!.slice(0, 160)}`,
      );
    }
  }
  // Members JSON-RPC does not define are dropped rather than refused (the SDK's schema is strict).
  const request = { jsonrpc: "2.0" as const, id, method, ...(params === undefined ? {} : { params }) };
  return { kind: "message", message: request as JSONRPCMessage };
}

/**
 * A tools/call whose params are a tool name and an object of arguments, nothing else: the SDK's
 * schema passes it (a string name, arguments a record), so the call an agent repeats for every page
 * of output is not checked by zod each time (test/mcp/json-rpc-check.test.ts holds it to the schema).
 */
export function isPlainToolCall(method: string, params: unknown): boolean {
  if (method !== "tools/call" || !isObject(params) || Object.getPrototypeOf(params) !== Object.prototype) return false;
  for (const key of Object.keys(params)) if (key !== "name" && key !== "arguments") return false;
  const args = params.arguments;
  return typeof params.name === "string" && (args === undefined || (isObject(args) && Object.getPrototypeOf(args) === Object.prototype));
}

function checkNotification(value: Record<string, unknown>): LineVerdict {
  // A notification is never answered, not even with an error.
  return JSONRPCNotificationSchema.safeParse(value).success ? { kind: "message", message: value as JSONRPCMessage } : { kind: "ignore" };
}
