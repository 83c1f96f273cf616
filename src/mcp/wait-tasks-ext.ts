/**
 * Long waits as tasks in the 2026-07-28 era: the tasks extension (`io.modelcontextprotocol/tasks`,
 * SEP-2663). A client declares it in each request's capabilities; derun declares it in
 * `server/discover`. To a request that declares it, a call of derun_wait_command or
 * derun_wait_output that may wait long is answered with a task at once (`resultType: "task"`,
 * ./handlers.ts decides), the wait goes on in the background in the same store as the 2025-era
 * tasks (./wait-tasks.ts), and the client polls `tasks/get`, whose answer carries the tool's result
 * once the wait ends; `tasks/cancel` stops it. The extension has no `tasks/result` and no
 * `tasks/list`, and no per-tool metadata (the 2025 `execution.taskSupport` is gone): the server
 * alone decides which calls become tasks.
 *
 * The SDK's v2 line (2.4.0) has no runtime for the extension: it lets `tasks/get` and
 * `tasks/cancel` through on a 2026 connection once a handler is registered with its own params
 * schema, and passes a handler's `resultType: "task"` through on `tools/call`; the rest is here.
 * `@modelcontextprotocol/ext-tasks` (0.2.2) is a requester (client) and a 2025-era receiver of
 * sampling and elicitation tasks, with no 2026 receiver: derun takes only its wire types, so the
 * answers below are checked against them and nothing of it loads at run time.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  MissingRequiredClientCapabilityError,
  type CallToolResult,
  type Server,
  type ServerContext,
  type Task,
} from "@modelcontextprotocol/server";
import type {
  CancelledTaskV2,
  CompletedTaskV2,
  CreateTaskResultV2,
  DetailedTaskV2,
  TaskV2,
  WorkingTaskV2,
} from "@modelcontextprotocol/ext-tasks/core/v2";
import { invalid, TASK_ID_PARAMS, type WaitTasks } from "./wait-tasks.ts";

/** The extension's identifier, as a capability key on both sides. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** derun's side of the negotiation: no settings are defined, an empty object says "supported". */
export const TASKS_EXTENSION_CAPABILITY = { [TASKS_EXTENSION]: {} } as const;

/**
 * Whether a request declares the extension (2026-07-28 capabilities are per request): `envelope` is
 * the SDK's `ctx.mcpReq.envelope`, the keys it lifted out of the request's `_meta`.
 */
export const declaresTasks = (envelope: unknown): boolean => {
  const capabilities = (envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY];
  const extensions = (capabilities as { extensions?: unknown } | undefined)?.extensions;
  return typeof extensions === "object" && extensions !== null && TASKS_EXTENSION in extensions;
};

/**
 * A task as the extension words it: `ttlMs` and `pollIntervalMs`; a tool error is `completed` with
 * `isError` in its result (`failed` is for JSON-RPC errors only, which a derun wait never answers).
 */
const wireTask = (task: Task): TaskV2 => ({
  taskId: task.taskId,
  status: task.status === "failed" ? "completed" : task.status,
  ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
  createdAt: task.createdAt,
  lastUpdatedAt: task.lastUpdatedAt,
  ttlMs: task.ttl ?? null,
  ...(task.pollInterval === undefined ? {} : { pollIntervalMs: task.pollInterval }),
});

/** The answer of a `tools/call` that became a task (the extension's CreateTaskResult). */
export const createTaskResult = (task: Task): CreateTaskResultV2 => ({ resultType: "task", ...wireTask(task) });

/**
 * The answer of `tasks/get` (the SDK stamps its `resultType: "complete"`): the task, with the tool's
 * result inlined once it has one, as a 2026 `tools/call` would have answered it.
 */
const detailedTask = ({ task, result }: { task: Task; result?: CallToolResult }): DetailedTaskV2 => {
  const wire = wireTask(task);
  if (result === undefined) return wire as WorkingTaskV2 | CancelledTaskV2;
  // A tool result is plain JSON (it goes on the wire as it is); the two packages type it apart.
  const inlined = { resultType: "complete", ...result } as unknown as CompletedTaskV2["result"];
  return { ...wire, status: "completed", result: inlined };
};

/** A request from a client that did not declare the extension may not touch tasks (-32021). */
const requireDeclared = (ctx: ServerContext): void => {
  if (declaresTasks(ctx.mcpReq.envelope)) return;
  throw new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { ...TASKS_EXTENSION_CAPABILITY } } },
    "Missing required client capability",
  );
};

/** `tasks/get`, `tasks/update` and `tasks/cancel`, on a 2026-era server. */
export const registerTasksExtension = (server: Server, tasks: WaitTasks): void => {
  server.setRequestHandler("tasks/get", { params: TASK_ID_PARAMS }, ({ taskId }, ctx) => {
    requireDeclared(ctx);
    return detailedTask(tasks.get(taskId));
  });
  // The SDK lifts `inputResponses` out of the params (ctx.mcpReq.inputResponses). derun never asks
  // for input, so every response answers a request never made: it is ignored, as the extension says.
  server.setRequestHandler("tasks/update", { params: TASK_ID_PARAMS }, ({ taskId }, ctx) => {
    requireDeclared(ctx);
    if (ctx.mcpReq.inputResponses === undefined) throw invalid("inputResponses must be an object");
    tasks.get(taskId); // An unknown task is -32602.
    return {};
  });
  // Cooperative, as the extension says: acknowledged even when the wait had ended already.
  server.setRequestHandler("tasks/cancel", { params: TASK_ID_PARAMS }, ({ taskId }, ctx) => {
    requireDeclared(ctx);
    tasks.cancel(taskId);
    return {};
  });
};
