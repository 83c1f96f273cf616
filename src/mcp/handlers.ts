/**
 * The answers of `derun mcp`, loaded on the first request that needs one (./server.ts): the queries
 * (src/queries) served as tools, listed with their arktype JSON Schemas, arguments checked against
 * those schemas (arktype loaded only to word a refusal, ./arguments.ts), every outcome, failures
 * included, a tool result (never a JSON-RPC error); and the resources, prompts and completions over
 * the same queries. Loading them (every query) is most of what a start costs, so a probe
 * (server/discover, initialize, ping) never does.
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  type CallToolRequest,
  type CallToolResult,
  type CompleteRequest,
  type GetPromptRequest,
  type Tool as McpTool,
} from "@modelcontextprotocol/server";
import { once } from "../core/ark.ts";
import { SCHEMA_VERSION } from "../core/enums.ts";
import { quote, visible } from "../core/quote.ts";
import { DerunError, describeError, type DerunErrorCode } from "../core/errors.ts";
import type { Logger } from "../core/log.ts";
import type { Store } from "../core/store.ts";
import { queries, READ_MAX_MAX_BYTES, WAIT_DEFAULT_TIMEOUT_MS } from "../tools/index.ts";
import type { Query } from "../core/tool.ts";
import { MemoryBound } from "../transcript/index.ts";
import { checkArguments } from "./arguments.ts";
import { complete } from "./completions.ts";
import { JoinedText } from "./json-line.ts";
import { compactSchema } from "./json-schema.ts";
import { getPrompt, PROMPTS } from "./prompts.ts";
import { listResources, readResource, RESOURCE_TEMPLATES } from "./resources.ts";
import { Subscriptions } from "./subscriptions.ts";
import { MAX_WORKING, TASK_TOOLS, type WaitTasks } from "./wait-tasks.ts";
import { createTaskResult } from "./wait-tasks-ext.ts";

export interface HandlersOptions {
  /** Where subscriptions' notifications go (the instance serving now, ./server.ts). */
  readonly notify: { readonly updated: (uri: string) => void; readonly listChanged: () => void };
  readonly store: Store;
  readonly log: Logger;
  /** Aborting it cancels every call in flight (server shutdown). */
  readonly signal: AbortSignal | undefined;
  /** Aborted when the server closes: the watch loops of subscriptions end with it. */
  readonly closed: AbortSignal;
  readonly tools: readonly Query<any, object>[] | undefined;
  readonly tasks: WaitTasks;
}

/** What tools/call needs. */
interface ToolsContext {
  readonly store: Store;
  readonly log: Logger;
  readonly byName: ReadonlyMap<string, Query<any, object>>;
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
const success = (tool: Query<any, object>, result: object, joined: boolean): CallToolResult => ({
  // A direct answer (./direct-call.ts) escapes the text's pieces one by one (./json-line.ts).
  content: [
    {
      type: "text",
      text: joined && tool.renderParts ? (new JoinedText(tool.renderParts(result)) as unknown as string) : tool.render(result),
    },
  ],
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

/**
 * What a read of `max_bytes` holds at once, about, at worst (binary output: the masking's texts, the
 * replay's rows and looks, the copies, the base64 and the line; 8-13 bytes a byte measured, with the
 * replay decoded in pieces and the masking's map made only for a secret): the memory bound collects
 * that much earlier before it, so a 1 MiB window starts from a collected heap (docs/performance.md).
 */
const WINDOW_HOLDS = 12;
const heldAtOnce = (args: Record<string, unknown> | undefined): number => {
  const max = args?.max_bytes;
  return typeof max === "number" && Number.isSafeInteger(max) && max > 0 ? Math.min(max, READ_MAX_MAX_BYTES) * WINDOW_HOLDS : 0;
};

/** One tool call: its answer, a failure included (never a JSON-RPC error). */
const runTool = async (tool: Query<any, object>, input: object, { store, log }: ToolsContext, signal: AbortSignal, joined = false) => {
  try {
    return success(tool, await tool.handler(input, { store, signal }), joined);
  } catch (error) {
    if (error instanceof DerunError && error.code !== "internal") return failure(error.code, describeError(error));
    log.log("error", "mcp_tool_failed", { tool: tool.name, error: describeError(error) });
    return failure("internal", `internal error: ${describeError(error)}`);
  }
};

/**
 * The request's cancel signal, its id, whether it is served in the 2026-07-28 era (no 2025-era
 * `params.task` there), and whether it declares the tasks extension (2026-07-28 only).
 */
type Extra = {
  readonly signal: AbortSignal;
  readonly requestId: string | number;
  readonly modern: boolean;
  readonly tasksExtension: boolean;
};

type Prepared = { readonly refused: CallToolResult } | { readonly tool: Query<any, object>; readonly input: { timeout_ms?: number } };

/**
 * A wait whose timeout (given, or the default) is at least this long becomes a task for a client
 * that declared the tasks extension; a shorter one is answered in the call, sooner than a first poll.
 */
const TASK_MIN_WAIT_MS = 5000;

/**
 * tools/call: arguments checked (./arguments.ts); a wait asked as a task (2025 era), or one that
 * may last for a client with the tasks extension (2026 era), runs in the background.
 */
const toolCalls = (context: ToolsContext, { signal, tasks }: HandlersOptions) => {
  const memory = new MemoryBound();
  const ended = signal ?? new AbortController().signal;
  /** The tool and its checked arguments, or the tool result that refuses them. */
  const prepare = ({ name, arguments: args = {} }: CallToolRequest["params"]): Prepared => {
    const tool = context.byName.get(name);
    if (!tool) return { refused: failure("invalid_argument", `unknown tool: ${quote(name)}`) };
    const checked = checkArguments(tool, args);
    if ("refused" in checked) return { refused: failure("invalid_argument", checked.refused) };
    return { tool, input: checked.input as { timeout_ms?: number } };
  };
  const answer = async (params: CallToolRequest["params"], cancel: AbortSignal) => {
    const call = prepare(params);
    return "refused" in call ? call.refused : runTool(call.tool, call.input, context, cancel);
  };
  /** The extension lets the server decide: a wait that may last is a task unless 16 already run. */
  const maybeTask = async (params: CallToolRequest["params"], cancel: AbortSignal) => {
    if (!TASK_TOOLS.has(params.name) || tasks.full) return answer(params, cancel);
    const call = prepare(params);
    if ("refused" in call) return call.refused;
    if ((call.input.timeout_ms ?? WAIT_DEFAULT_TIMEOUT_MS) < TASK_MIN_WAIT_MS) return runTool(call.tool, call.input, context, cancel);
    return createTaskResult(tasks.start(undefined, ended, (stop) => runTool(call.tool, call.input, context, stop)));
  };
  const call = async (request: CallToolRequest, extra: Extra) => {
    // Before the work: the previous call's response is garbage by now.
    memory.check(heldAtOnce(request.params.arguments));
    const { params } = request;
    const cancel = signal ? AbortSignal.any([extra.signal, signal]) : extra.signal;
    if (params.task === undefined) return extra.tasksExtension ? maybeTask(params, cancel) : answer(params, cancel);
    // Asked as a task, the answer must be a task: what cannot be one is a JSON-RPC error.
    if (!TASK_TOOLS.has(params.name) || extra.modern)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `${quote(params.name)} does not run as a task (${[...TASK_TOOLS].join(" and ")} do)`,
      );
    if (tasks.full)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${MAX_WORKING} waits already run as tasks: wait for one to end`);
    return { task: tasks.start(params.task.ttl ?? undefined, ended, (stop) => answer(params, stop)) };
  };
  /**
   * A call answered without the SDK (./direct-call.ts): no task; the text as pieces where the tool
   * gives them; one look at the session's facts (Store.atOnce: a page, never a wait).
   */
  const direct = async (params: CallToolRequest["params"], cancel: AbortSignal): Promise<CallToolResult> => {
    // A page: the resident size looked at every few small ones (MemoryBound.checkCall).
    memory.checkCall(heldAtOnce(params.arguments));
    const prepared = prepare(params);
    if ("refused" in prepared) return prepared.refused;
    const run = () => runTool(prepared.tool, prepared.input, context, signal ? AbortSignal.any([cancel, signal]) : cancel, true);
    return context.store.atOnce ? context.store.atOnce(run) : run();
  };
  return { call, direct };
};

/** The tools as tools/list lists them (./tool-list.json holds this for every query, made ahead). */
export const listedTools = (tools: readonly Query<any, object>[]): McpTool[] =>
  tools.map((tool) => ({
    name: tool.name,
    title: tool.annotations.title,
    description: tool.description,
    inputSchema: inputSchemaOf(tool),
    // destructiveHint and idempotentHint mean something only when readOnlyHint is false (MCP spec),
    // and the title is listed above: the rest would be bytes in every model's context for nothing.
    annotations: { readOnlyHint: tool.annotations.readOnlyHint, openWorldHint: tool.annotations.openWorldHint },
    ...(TASK_TOOLS.has(tool.name) ? { execution: { taskSupport: "optional" as const } } : {}),
  }));

export type Handlers = ReturnType<typeof makeHandlers>;

/** Every answer that reads the queries, for ./server.ts to serve. */
export const makeHandlers = (options: HandlersOptions) => {
  const { notify, store, log, signal } = options;
  const tools = options.tools ?? queries;
  // Made on the first tools/list that asks here (tools passed in: ./server.ts answers the file for
  // derun's own): listing from the types loads arktype, which a valid call no longer needs.
  const listed = once(() => listedTools(tools));
  const calls = toolCalls({ store, log, byName: new Map(tools.map((tool) => [tool.name as string, tool])) }, options);
  const subscriptions = new Subscriptions(store, notify, options.closed);
  const context = (extra: { signal: AbortSignal }) => ({ store, signal: signal ? AbortSignal.any([extra.signal, signal]) : extra.signal });
  return {
    listTools: () => ({ tools: listed() }),
    callTool: calls.call,
    /** tools/call without the SDK (./direct-call.ts). */
    callToolDirect: calls.direct,
    listResources: async (extra: { signal: AbortSignal }) => {
      void subscriptions.watchList();
      return { resources: await listResources(store, context(extra).signal) };
    },
    listResourceTemplates: () => ({ resourceTemplates: RESOURCE_TEMPLATES }),
    readResource: async (uri: string, extra: { signal: AbortSignal }) => ({
      contents: [{ uri, mimeType: "text/plain", text: await readResource(store, uri, context(extra).signal) }],
    }),
    subscribe: (uri: string) => subscriptions.subscribe(uri),
    /** A 2026-07-28 `subscriptions/listen` asked for list changes (./listen.ts). */
    watchList: () => subscriptions.watchList(),
    unsubscribe: (uri: string) => subscriptions.unsubscribe(uri),
    listPrompts: () => ({ prompts: PROMPTS }),
    getPrompt: (params: GetPromptRequest["params"], extra: { signal: AbortSignal }) =>
      getPrompt(store, params.name, params.arguments, context(extra).signal),
    complete: (params: CompleteRequest["params"], extra: { signal: AbortSignal }) => complete(params, context(extra)),
    close: () => subscriptions.close(),
  };
};
