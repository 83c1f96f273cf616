/**
 * The MCP adapter: the queries (src/queries) served as tools through the SDK's low-level Server.
 * Queries stay MCP-agnostic; this module lists them with their arktype JSON Schemas, validates
 * arguments with arktype, and turns every outcome, failures included, into a tool result (never a
 * JSON-RPC error).
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool as McpTool,
} from "@modelcontextprotocol/sdk/types.js";
import { type } from "arktype";
import pkg from "../../package.json" with { type: "json" };
import { SCHEMA_VERSION } from "../core/enums.ts";
import { quote } from "../core/quote.ts";
import { argumentMessage } from "./argument-message.ts";
import { MemoryBound } from "./memory-bound.ts";
import { DerunError, describeError, type DerunErrorCode } from "../core/errors.ts";
import type { Logger } from "../core/log.ts";
import type { Store } from "../core/store.ts";
import type { Query } from "../queries/query.ts";
import { queries } from "../queries/index.ts";

export interface DerunServerOptions {
  readonly store: Store;
  readonly log: Logger;
  /** Aborting it cancels every call in flight (server shutdown). */
  readonly signal?: AbortSignal;
  /** The queries to serve as tools; every one by default. */
  readonly tools?: readonly Query<any, object>[];
}

/**
 * The JSON Schema of a tool's arguments. arktype exports its `expected` meta (the phrase of one-line
 * error messages) as a key, which is no JSON Schema keyword: drop it (no tool has an argument
 * named `expected`). MCP requires the root to be an object schema.
 */
const inputSchemaOf = (tool: Query<any, object>): McpTool["inputSchema"] => {
  const withoutExpected = (key: string, value: unknown) => (key === "expected" ? undefined : value);
  const schema = JSON.parse(JSON.stringify(tool.input.toJsonSchema(), withoutExpected));
  if (schema.type !== "object") throw new Error(`tool ${tool.name}: input type must be an object`);
  return schema;
};

const success = (result: object): CallToolResult => ({
  content: [{ type: "text", text: JSON.stringify(result) }],
  structuredContent: result as Record<string, unknown>,
});

const failure = (code: DerunErrorCode, message: string): CallToolResult => ({
  isError: true,
  content: [{ type: "text", text: message }],
  structuredContent: { schema_version: SCHEMA_VERSION, error: { code, message } },
});

/** Build the `derun mcp` server: connect it to a transport to serve. */
export const createDerunServer = ({ store, log, signal, tools = queries }: DerunServerOptions): Server => {
  const byName = new Map(tools.map((tool) => [tool.name as string, tool]));
  const listed: McpTool[] = tools.map((tool) => ({
    name: tool.name,
    title: tool.annotations.title,
    description: tool.description,
    inputSchema: inputSchemaOf(tool),
    annotations: { ...tool.annotations },
  }));
  const server = new Server({ name: pkg.name, version: pkg.version }, { capabilities: { tools: {} } });

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listed }));

  const memory = new MemoryBound();
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    // Before the work: the previous call's response is garbage by now.
    memory.check();
    const { name, arguments: args = {} } = request.params;
    const tool = byName.get(name);
    if (!tool) return failure("invalid_argument", `unknown tool: ${quote(name)}`);
    const input = tool.input(args);
    if (input instanceof type.errors) return failure("invalid_argument", argumentMessage(input));
    try {
      const cancel = signal ? AbortSignal.any([extra.signal, signal]) : extra.signal;
      return success(await tool.handler(input, { store, signal: cancel }));
    } catch (error) {
      if (error instanceof DerunError && error.code !== "internal") return failure(error.code, describeError(error));
      log.log("error", "mcp_tool_failed", { tool: name, error: describeError(error) });
      return failure("internal", `internal error: ${describeError(error)}`);
    }
  });

  return server;
};
