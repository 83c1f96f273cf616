/**
 * The calls `derun mcp` answers without the SDK: `derun_read_output` on a 2025-era connection,
 * asked plainly (no task, no progress token, no retry state). An agent pages a long log with it,
 * a call per 64 KiB window, and around the read itself the SDK spent more than the read: two zod
 * checks of the request and one of the result (a copy of it), the checks of each message passing
 * through serveStdio, and the answer's JSON built and encoded again by the line transport (about
 * 0.4 ms of a 0.7 ms call, docs/performance.md). Here the same handler runs (./handlers.ts: the
 * arguments checked, the memory bound, every failure a tool result) and its result is written as
 * the SDK writes it: `{"result":…,"jsonrpc":"2.0","id":…}`, the result's members in the order its
 * zod schema gives them. test/mcp/direct-call.test.ts holds the two paths' lines byte for byte.
 *
 * Anything else (another tool, another era, a `task`, `_meta` the SDK reads) goes through the SDK
 * as before; so does the first call, which loads the handlers.
 */
import { ProtocolErrorCode, type CallToolRequest, type CallToolResult } from "@modelcontextprotocol/server";
import { jsonLine } from "./json-line.ts";
import type { LineBuffers } from "./line-buffers.ts";

/** Tools answered directly: the paged reads. */
const DIRECT_TOOLS: ReadonlySet<string> = new Set(["derun_read_output"]);
/** The members of a direct call's params: anything else (`task`, `requestState`, `inputResponses`) is the SDK's to read. */
const PARAMS: ReadonlySet<string> = new Set(["name", "arguments", "_meta"]);
/** `_meta` members the SDK reads (a progress token, a related task). */
const READ_META = ["progressToken", "io.modelcontextprotocol/related-task", "__proto__"];

type RequestId = string | number;

/** A request as the line transport passes it on (checked: ./json-rpc-check.ts). */
export interface DirectRequest {
  readonly id: RequestId;
  readonly method: string;
  readonly params?: Record<string, unknown>;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && Object.getPrototypeOf(v) === Object.prototype;

/**
 * Whether the SDK would hand this request to derun's tools/call handler unchanged, and it calls a
 * tool answered directly. Its params passed the SDK's schema already (the line transport's check).
 */
export function isDirectCall(request: DirectRequest): boolean {
  if (request.method !== "tools/call") return false;
  const { params } = request;
  if (!isPlainObject(params) || typeof params.name !== "string" || !DIRECT_TOOLS.has(params.name)) return false;
  for (const key of Object.keys(params)) if (!PARAMS.has(key)) return false;
  const args = params.arguments;
  // An argument named __proto__ is one the SDK's copy of the arguments drops: its way, not this one.
  if (args !== undefined && (!isPlainObject(args) || Object.hasOwn(args, "__proto__"))) return false;
  const meta = params._meta;
  return meta === undefined || (isPlainObject(meta) && !READ_META.some((key) => Object.hasOwn(meta, key)));
}

/** The result as the SDK's zod check gives it back: its members in the schema's order, others after. */
const inSchemaOrder = ({ _meta, content, structuredContent, isError, ...rest }: CallToolResult): CallToolResult => ({
  ...(_meta === undefined ? {} : { _meta }),
  content,
  ...(structuredContent === undefined ? {} : { structuredContent }),
  ...(isError === undefined ? {} : { isError }),
  ...rest,
});

/** The answer's line for a direct call's result, or for what it threw (as the SDK answers a handler that throws). */
export async function directAnswer(id: RequestId, result: Promise<CallToolResult>, buffers?: LineBuffers): Promise<Buffer> {
  try {
    return jsonLine({ result: inSchemaOrder(await result), jsonrpc: "2.0", id }, buffers);
  } catch (error) {
    const thrown = (error as { code?: unknown }).code;
    const code = Number.isSafeInteger(thrown) ? (thrown as number) : ProtocolErrorCode.InternalError;
    const { message = "Internal error", data } = error as { message?: string; data?: unknown };
    // The 2025 codec's mapping of a thrown code (-32002, a 2026 code, is -32602 there).
    const answer = { code: code === -32002 ? -32602 : code, message, ...(data === undefined ? {} : { data }) };
    return jsonLine({ jsonrpc: "2.0", id, error: answer });
  }
}

export type DirectParams = CallToolRequest["params"];
