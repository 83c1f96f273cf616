/**
 * The `derun mcp` server on the MCP SDK's v2 line: its low-level Server, one instance per protocol
 * era (the SDK's `serveStdio` asks for one per connection, ./stdio.ts), its capabilities, and each
 * method routed to its answer (./handlers.ts). The era is the SDK's: a 2026-07-28 instance answers
 * `server/discover` and encodes every answer on the 2026 wire (`resultType`, the cache fields,
 * `_meta` serverInfo; tasks as an extension, ./wait-tasks-ext.ts), a 2025-era one answers
 * `initialize`. The answers are loaded on the first request that needs them, shared by every
 * instance of one process: a probe (server/discover, initialize, ping) is answered without loading
 * ArkType or a single query, which is most of what a start costs.
 */
import {
  type CallToolResult,
  PROTOCOL_VERSION_META_KEY,
  type JSONRPCRequest,
  type Result,
  Server,
  type ServerContext,
  type Tool as McpTool,
} from "@modelcontextprotocol/server";
import pkg from "../../package.json" with { type: "json" };
import type { Logger } from "../core/log.ts";
import type { Store } from "../core/store.ts";
import type { Query } from "../core/tool.ts";
import { directAnswer, isDirectCall, type DirectParams, type DirectRequest } from "./direct-call.ts";
import { LineBuffers } from "./line-buffers.ts";
import type { Handlers } from "./handlers.ts";
import type { ListenWatches } from "./listen.ts";
import { TASKS_CAPABILITY, TASK_TOOLS, WaitTasks } from "./wait-tasks.ts";
import { declaresTasks, registerTasksExtension, TASKS_EXTENSION_CAPABILITY } from "./wait-tasks-ext.ts";

/** The protocol era one instance serves (the SDK's `serveStdio` decides it per connection). */
export type Era = "legacy" | "modern";

/** The Server's JSON Schema validator: derun asks a client for nothing to validate. */
const NO_JSON_SCHEMAS = {
  getValidator(): never {
    throw new Error("derun mcp validates no JSON Schema (it sends no elicitation)");
  },
};

/**
 * Whether a `tools/call` may be answered with a task: asked as one (`params.task`, 2025 era), or a
 * wait from a request that declares the tasks extension (2026 era, ./wait-tasks-ext.ts).
 */
const mayBeTask = (request: JSONRPCRequest, ctx: ServerContext): boolean => {
  const params = request.params as { task?: unknown; name?: unknown } | undefined;
  return params?.task !== undefined || (TASK_TOOLS.has(params?.name as string) && declaresTasks(ctx.mcpReq.envelope));
};

/**
 * The SDK's Server, but a `tools/call` that may be answered with a task passes its answer (`{ task }`
 * in 2025, `resultType: "task"` in 2026) unchecked: the v2 line has no task runtime in either era,
 * and its own check of a tools/call answer refuses one without `content` (./wait-tasks.ts serves
 * tasks). derun's own tool results need no check.
 */
class DerunServer extends Server {
  protected override _wrapHandler(
    method: string,
    handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>,
  ): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    const checked = super._wrapHandler(method, handler);
    if (method !== "tools/call") return checked;
    return (request, ctx) => (mayBeTask(request, ctx) ? handler(request, ctx) : checked(request, ctx));
  }
}

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

/** The servers of one `derun mcp`: `make` one per era asked, `close` ends what they share. */
export interface DerunServers {
  make(era: Era): Server;
  /**
   * Start the watches a 2026-07-28 `subscriptions/listen` names (./listen.ts), unless the
   * connection is 2025-era; resolves once they are armed.
   */
  listen(watches: ListenWatches): Promise<void>;
  /**
   * The answer's line of a call derun answers without the SDK (./direct-call.ts), or undefined:
   * the SDK's to answer. Only once a 2025-era instance serves (its era pinned for good) and a call
   * has loaded the handlers.
   */
  direct(request: DirectRequest, cancel: AbortSignal): Promise<Buffer> | undefined;
  /** A line `direct` gave was written or dropped: its buffer holds a later one (./line-buffers.ts). */
  lineDone(line: Uint8Array): void;
  close(): void;
}

/** What every instance of one process shares: the answers (loaded once), the tasks, the end. */
export const derunServers = ({ store, log, signal, tools, onFirstUse = () => {} }: DerunServerOptions): DerunServers => {
  const tasks = new WaitTasks();
  const closed = new AbortController();
  signal?.addEventListener("abort", () => closed.abort(), { once: true });
  /** The instance serving now: subscriptions notify through it (a probe's instance is replaced). */
  let current: Server | undefined;
  let currentEra: Era | undefined;
  const notify = {
    updated: (uri: string) => void current?.sendResourceUpdated({ uri }).catch(() => undefined),
    listChanged: () => void current?.sendResourceListChanged().catch(() => undefined),
  };
  let loaded: Handlers | undefined;
  let loading: Promise<Handlers> | undefined;
  const handlers = async (): Promise<Handlers> =>
    loaded ??
    (await (loading ??= import("./handlers.ts").then(({ makeHandlers }) => {
      loaded = makeHandlers({ notify, store, log, signal, closed: closed.signal, tools, tasks });
      return loaded;
    })));
  /** A request that reads the sessions: the server's work starts (the caller's onFirstUse). */
  const using = async (): Promise<Handlers> => {
    onFirstUse();
    return handlers();
  };
  const make = (era: Era): Server => {
    const server = new DerunServer(
      { name: pkg.name, version: pkg.version },
      {
        // Resources and prompts are a layer over the same queries, for clients that offer them to people.
        capabilities: {
          tools: {},
          resources: { subscribe: true, listChanged: true },
          prompts: {},
          completions: {},
          // Tasks in each era's words: a 2025 capability, a 2026-07-28 extension.
          ...(era === "legacy" ? { tasks: TASKS_CAPABILITY } : { extensions: TASKS_EXTENSION_CAPABILITY }),
        },
        // The SDK checks JSON Schemas only in a client's answer to an elicitation, which derun never
        // asks for; the compiled binary leaves its ajv out (scripts/build/sdk-ajv-stub.ts).
        jsonSchemaValidator: NO_JSON_SCHEMAS,
      },
    );
    current = server;
    currentEra = era;
    if (era === "legacy") tasks.register(server);
    else registerTasksExtension(server, tasks);
    route(server, era, { handlers, using, tools });
    return server;
  };
  const listen = async ({ list, uris }: ListenWatches): Promise<void> => {
    // A 2025-era connection answers the listen -32601 (not in its revision): nothing to watch.
    if (currentEra === "legacy" || (!list && uris.length === 0)) return;
    const answers = await using();
    const armed = uris.map((uri) => {
      try {
        return answers.subscribe(uri);
      } catch {
        return undefined; // A URI that names no resource: the SDK acknowledged the filter; nothing changes there.
      }
    });
    await Promise.all([...(list ? [answers.watchList()] : []), ...armed]);
  };
  const lineBuffers = new LineBuffers();
  const direct = (request: DirectRequest, cancel: AbortSignal): Promise<Buffer> | undefined => {
    if (currentEra !== "legacy" || loaded === undefined || !isDirectCall(request)) return undefined;
    onFirstUse();
    return directAnswer(request.id, loaded.callToolDirect(request.params as unknown as DirectParams, cancel), lineBuffers);
  };
  return {
    make,
    listen,
    direct,
    lineDone: (line: Uint8Array) => lineBuffers.give(line),
    close: () => {
      closed.abort();
      loaded?.close();
    },
  };
};

interface Routes {
  readonly handlers: () => Promise<Handlers>;
  readonly using: () => Promise<Handlers>;
  readonly tools: readonly Query<any, object>[] | undefined;
}

/** Each method of one instance to its answer. */
const route = (server: Server, era: Era, { handlers, using, tools }: Routes): void => {
  const extra = (ctx: ServerContext) => {
    // A request claiming 2026-07-28 asks for no 2025-era task (`params.task`); it may declare the extension.
    const modern =
      era === "modern" || (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[PROTOCOL_VERSION_META_KEY] !== undefined;
    return {
      signal: ctx.mcpReq.signal,
      requestId: ctx.mcpReq.id,
      modern,
      tasksExtension: era === "modern" && declaresTasks(ctx.mcpReq.envelope),
    };
  };
  // Every query's listing is made ahead (./tool-list.json): a client that lists the tools and calls
  // none never loads ArkType and the queries (about 38 MB resident, docs/performance.md).
  server.setRequestHandler("tools/list", async () =>
    tools === undefined
      ? { tools: (await import("./tool-list.json")).default.tools as unknown as McpTool[] }
      : (await handlers()).listTools(),
  );
  // A task's answer (`{ task }`) is no CallToolResult: DerunServer lets it pass as it is.
  server.setRequestHandler("tools/call", async (request, ctx) => (await using()).callTool(request, extra(ctx)) as Promise<CallToolResult>);
  server.setRequestHandler("resources/list", async (_request, ctx) => (await using()).listResources(extra(ctx)));
  server.setRequestHandler("resources/templates/list", async () => (await handlers()).listResourceTemplates());
  server.setRequestHandler("resources/read", async (request, ctx) => (await using()).readResource(request.params.uri, extra(ctx)));
  server.setRequestHandler("resources/subscribe", async (request) => {
    (await using()).subscribe(request.params.uri);
    return {};
  });
  server.setRequestHandler("resources/unsubscribe", async (request) => {
    (await handlers()).unsubscribe(request.params.uri);
    return {};
  });
  server.setRequestHandler("prompts/list", async () => (await handlers()).listPrompts());
  server.setRequestHandler("prompts/get", async (request, ctx) => (await using()).getPrompt(request.params, extra(ctx)));
  server.setRequestHandler("completion/complete", async (request, ctx) => (await using()).complete(request.params, extra(ctx)));
};

/** One 2025-era server on its own (connect it to a transport to serve); closing it ends its work. */
export const createDerunServer = (options: DerunServerOptions): Server => {
  const servers = derunServers(options);
  const server = servers.make("legacy");
  const close = server.close.bind(server);
  server.close = async () => {
    servers.close();
    await close();
  };
  return server;
};
