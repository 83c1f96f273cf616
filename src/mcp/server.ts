/**
 * The `derun mcp` server: the SDK's low-level Server speaking both protocol eras (./two-era-server.ts),
 * its capabilities, and each method routed to its answer (./handlers.ts). The answers are loaded on
 * the first request that needs them: a probe (server/discover, initialize, ping) is answered without
 * loading ArkType or a single query, which is most of what a start costs.
 */
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  type Tool as McpTool,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import pkg from "../../package.json" with { type: "json" };
import type { Logger } from "../core/log.ts";
import type { Store } from "../core/store.ts";
import type { Query } from "../core/tool.ts";
import type { Handlers } from "./handlers.ts";
import { TwoEraServer } from "./two-era-server.ts";
import { TASKS_CAPABILITY, WaitTasks } from "./wait-tasks.ts";

/** The Server's JSON Schema validator: derun asks a client for nothing to validate. */
const NO_JSON_SCHEMAS = {
  getValidator(): never {
    throw new Error("derun mcp validates no JSON Schema (it sends no elicitation)");
  },
};

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

/** Build the `derun mcp` server: connect it to a transport to serve. */
export const createDerunServer = ({ store, log, signal, tools, onFirstUse = () => {} }: DerunServerOptions): TwoEraServer => {
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
      // The SDK checks JSON Schemas only in a client's answer to an elicitation, which derun never
      // asks for; the compiled binary leaves its ajv out (scripts/build/sdk-ajv-stub.ts).
      jsonSchemaValidator: NO_JSON_SCHEMAS,
    },
  );
  const closed = new AbortController();
  signal?.addEventListener("abort", () => closed.abort(), { once: true });
  let loaded: Handlers | undefined;
  let loading: Promise<Handlers> | undefined;
  const handlers = async (): Promise<Handlers> =>
    loaded ??
    (await (loading ??= import("./handlers.ts").then(({ makeHandlers }) => {
      loaded = makeHandlers({ server, store, log, signal, closed: closed.signal, tools, tasks });
      return loaded;
    })));
  const close = server.close.bind(server);
  server.close = async () => {
    closed.abort();
    loaded?.close();
    await close();
  };
  /** A request that reads the sessions: the server's work starts (the caller's onFirstUse). */
  const using = async (): Promise<Handlers> => {
    onFirstUse();
    return handlers();
  };

  // Every query's listing is made ahead (./tool-list.json): a client that lists the tools and calls
  // none never loads ArkType and the queries (about 38 MB resident, docs/performance.md).
  server.setRequestHandler(ListToolsRequestSchema, async () =>
    tools === undefined
      ? { tools: (await import("./tool-list.json")).default.tools as unknown as McpTool[] }
      : (await handlers()).listTools(),
  );
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => (await using()).callTool(request, extra));
  server.setRequestHandler(ListResourcesRequestSchema, async (_request, extra) => (await using()).listResources(extra));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => (await handlers()).listResourceTemplates());
  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => (await using()).readResource(request.params.uri, extra));
  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    (await using()).subscribe(request.params.uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    (await handlers()).unsubscribe(request.params.uri);
    return {};
  });
  server.setRequestHandler(ListPromptsRequestSchema, async () => (await handlers()).listPrompts());
  server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => (await using()).getPrompt(request.params, extra));
  server.setRequestHandler(CompleteRequestSchema, async (request, extra) => (await using()).complete(request.params, extra));
  return server;
};
