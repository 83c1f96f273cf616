/**
 * The MCP adapter: the queries (src/queries) served as tools through the SDK's low-level Server.
 * Queries stay MCP-agnostic; this module lists them with their arktype JSON Schemas, validates
 * arguments with arktype, and turns every outcome, failures included, into a tool result (never a
 * JSON-RPC error).
 */
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  McpError,
  type CallToolResult,
  type Tool as McpTool,
} from "@modelcontextprotocol/sdk/types.js";
import { type } from "arktype";
import pkg from "../../package.json" with { type: "json" };
import { SCHEMA_VERSION } from "../core/enums.ts";
import { quote, visible } from "../core/quote.ts";
import { argumentMessage } from "./argument-message.ts";
import { compactSchema } from "./json-schema.ts";
import { MemoryBound } from "../transcript/index.ts";
import { DerunError, describeError, type DerunErrorCode } from "../core/errors.ts";
import type { Logger } from "../core/log.ts";
import type { Store } from "../core/store.ts";
import type { Query } from "../queries/query.ts";
import { queries } from "../queries/index.ts";
import { complete } from "./completions.ts";
import { getPrompt, PROMPTS } from "./prompts.ts";
import { listResources, readResource, RESOURCE_TEMPLATES } from "./resources.ts";
import { Subscriptions } from "./subscriptions.ts";
import { eraOf } from "./eras.ts";
import { TwoEraServer } from "./two-era-server.ts";
import { MAX_WORKING, TASK_TOOLS, TASKS_CAPABILITY, WaitTasks } from "./wait-tasks.ts";

export interface DerunServerOptions {
  readonly store: Store;
  readonly log: Logger;
  /** Aborting it cancels every call in flight (server shutdown). */
  readonly signal?: AbortSignal;
  /** The queries to serve as tools; every one by default. */
  readonly tools?: readonly Query<any, object>[];
  /**
   * Called before each request that reads the sessions (a call, a resource, a prompt, a completion);
   * not for a probe (server/discover, initialize, ping, the lists of tools, templates and prompts).
   */
  readonly onFirstUse?: () => void;
}

/** The JSON Schema of a tool's arguments, made short (./json-schema.ts). MCP requires an object schema at the root. */
const inputSchemaOf = (tool: Query<any, object>): McpTool["inputSchema"] => {
  const schema = compactSchema(tool.input.toJsonSchema()) as McpTool["inputSchema"];
  if (schema.type !== "object") throw new Error(`tool ${tool.name}: input type must be an object`);
  return schema;
};

/**
 * The text content is the query's rendering for a model. structuredContent carries the whole result
 * object, except for queries whose answer is lines of output: Claude Code, Codex and VS Code give
 * the model JSON.stringify(structuredContent) instead of the text whenever it is present, so for
 * those the text alone is sent (once, and readable as lines in every client).
 */
const success = (tool: Query<any, object>, result: object): CallToolResult => ({
  content: [{ type: "text", text: tool.render(result) }],
  ...(tool.structured === false ? {} : { structuredContent: result as Record<string, unknown> }),
});

/** Error messages quote what the client sent: one line, bounded. */
const MAX_MESSAGE = 300;
const bounded = (message: string): string => {
  const line = visible(message.split("\n").join("; "));
  return line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE - 1)}…` : line;
};

const failure = (code: DerunErrorCode, message: string): CallToolResult => ({
  isError: true,
  content: [{ type: "text", text: bounded(message) }],
  structuredContent: { schema_version: SCHEMA_VERSION, error: { code, message: bounded(message) } },
});

/** What tools/call needs of the server it is served by. */
interface ToolsContext {
  readonly store: Store;
  readonly log: Logger;
  readonly signal: AbortSignal | undefined;
  readonly byName: ReadonlyMap<string, Query<any, object>>;
  readonly onFirstUse: () => void;
  readonly tasks: WaitTasks;
}

/** One tool call: its answer, a failure included (never a JSON-RPC error). */
const runTool = async (tool: Query<any, object>, input: object, { store, log }: ToolsContext, signal: AbortSignal) => {
  try {
    return success(tool, await tool.handler(input, { store, signal }));
  } catch (error) {
    if (error instanceof DerunError && error.code !== "internal") return failure(error.code, describeError(error));
    log.log("error", "mcp_tool_failed", { tool: tool.name, error: describeError(error) });
    return failure("internal", `internal error: ${describeError(error)}`);
  }
};

/** tools/call: arguments checked with arktype; a wait asked as a task (2025 era) runs in the background. */
const serveTools = (server: TwoEraServer, context: ToolsContext): void => {
  const memory = new MemoryBound();
  const { byName, signal, tasks } = context;
  const ended = signal ?? new AbortController().signal;
  const answer = async ({ name, arguments: args = {} }: { name: string; arguments?: Record<string, unknown> }, cancel: AbortSignal) => {
    const tool = byName.get(name);
    if (!tool) return failure("invalid_argument", `unknown tool: ${quote(name)}`);
    const input = tool.input(args);
    if (input instanceof type.errors) return failure("invalid_argument", argumentMessage(input));
    return runTool(tool, input, context, cancel);
  };
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    context.onFirstUse();
    // Before the work: the previous call's response is garbage by now.
    memory.check();
    const { params } = request;
    if (params.task === undefined) return answer(params, signal ? AbortSignal.any([extra.signal, signal]) : extra.signal);
    // Asked as a task, the answer must be a task: what cannot be one is a JSON-RPC error.
    if (!TASK_TOOLS.has(params.name) || eraOf(params).kind !== "legacy")
      throw new McpError(ErrorCode.InvalidParams, `${quote(params.name)} does not run as a task (${[...TASK_TOOLS].join(" and ")} do)`);
    if (tasks.full) throw new McpError(ErrorCode.InvalidParams, `${MAX_WORKING} waits already run as tasks: wait for one to end`);
    return tasks.start({ ...request, id: extra.requestId }, ended, (cancel) => answer(params, cancel));
  });
};

/** Build the `derun mcp` server: connect it to a transport to serve. */
export const createDerunServer = ({ store, log, signal, tools = queries, onFirstUse = () => {} }: DerunServerOptions): TwoEraServer => {
  const byName = new Map(tools.map((tool) => [tool.name as string, tool]));
  const listed: McpTool[] = tools.map((tool) => ({
    name: tool.name,
    title: tool.annotations.title,
    description: tool.description,
    inputSchema: inputSchemaOf(tool),
    // destructiveHint and idempotentHint mean something only when readOnlyHint is false (MCP spec),
    // and the title is listed above: the rest would be bytes in every model's context for nothing.
    annotations: { readOnlyHint: tool.annotations.readOnlyHint, openWorldHint: tool.annotations.openWorldHint },
    ...(TASK_TOOLS.has(tool.name) ? { execution: { taskSupport: "optional" as const } } : {}),
  }));
  const tasks = new WaitTasks();
  // Both protocol eras, each request answered in the one its _meta names (./eras.ts).
  const server = new TwoEraServer(
    { name: pkg.name, version: pkg.version },
    {
      // Resources and prompts are a layer over the same queries, for clients that offer them to people.
      capabilities: {
        tools: {},
        resources: { subscribe: true, listChanged: true },
        prompts: {},
        completions: {},
        tasks: TASKS_CAPABILITY,
      },
      taskStore: tasks.store,
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listed }));

  // The watch loops of subscriptions end with the server.
  const open = new AbortController();
  signal?.addEventListener("abort", () => open.abort(), { once: true });
  const subscriptions = new Subscriptions(
    store,
    {
      updated: (uri) => void server.sendResourceUpdated({ uri }).catch(() => undefined),
      listChanged: () => void server.sendResourceListChanged().catch(() => undefined),
    },
    open.signal,
  );
  const close = server.close.bind(server);
  server.close = async () => {
    open.abort();
    subscriptions.close();
    await close();
  };
  const requestSignal = (extra: { signal: AbortSignal }) => (signal ? AbortSignal.any([extra.signal, signal]) : extra.signal);
  server.setRequestHandler(ListResourcesRequestSchema, async (_request, extra) => {
    onFirstUse();
    subscriptions.watchList();
    return { resources: await listResources(store, requestSignal(extra)) };
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: RESOURCE_TEMPLATES }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    onFirstUse();
    return {
      contents: [
        { uri: request.params.uri, mimeType: "text/plain", text: await readResource(store, request.params.uri, requestSignal(extra)) },
      ],
    };
  });
  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    onFirstUse();
    subscriptions.subscribe(request.params.uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    subscriptions.unsubscribe(request.params.uri);
    return {};
  });
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: PROMPTS }));
  server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
    onFirstUse();
    return getPrompt(store, request.params.name, request.params.arguments, requestSignal(extra));
  });

  server.setRequestHandler(CompleteRequestSchema, async (request, extra) => {
    onFirstUse();
    return complete(request.params, { store, signal: requestSignal(extra) });
  });

  serveTools(server, { store, log, signal, byName, onFirstUse, tasks });
  return server;
};
