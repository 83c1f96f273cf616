/**
 * Long waits as tasks (MCP 2025-11-25 tasks, the v1 SDK's task support): a client that sends
 * `tools/call` of derun_wait_command or derun_wait_output with `params.task` gets a task at once
 * and the wait goes on in the background; the client polls `tasks/get`, or asks `tasks/result`,
 * which answers once the wait ends (the command ended, output came, or the timeout). Without
 * `params.task` the call is answered as always. Bounded: at most MAX_WORKING waits at once (a
 * further one is refused as a tool error), each task kept at most MAX_TTL_MS, and every wait ends
 * with the server (its answer is stored, so `tasks/result` still answers).
 *
 * Only in the 2025 era: in 2026-07-28, tasks are an extension with a wire of its own, not served
 * (./eras.ts strips `execution` and the `tasks` capability from 2026-era answers).
 */
import { InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js";
import type { CallToolResult, CreateTaskResult, Request, RequestId, Task } from "@modelcontextprotocol/sdk/types.js";

/** The tools that may run as a task: the waits, which may take up to a minute. */
export const TASK_TOOLS: ReadonlySet<string> = new Set(["derun_wait_command", "derun_wait_output"]);
/** Waits running as tasks at once: as many as calls in flight (line-transport.ts's MAX_IN_FLIGHT). */
export const MAX_WORKING = 16;
/** How long a task and its answer are kept, at most and when the client names no ttl. */
export const MAX_TTL_MS = 10 * 60 * 1000;
/** How often a client is asked to poll `tasks/get`. */
const POLL_INTERVAL_MS = 1000;

/** The server's `tasks` capability: tool calls may be tasks; tasks can be listed and cancelled. */
export const TASKS_CAPABILITY = { list: {}, cancel: {}, requests: { tools: { call: {} } } } as const;

/** The SDK's in-memory store, which also stops the wait of a task the client cancels. */
class WaitTaskStore extends InMemoryTaskStore {
  readonly working = new Map<string, AbortController>();

  override async createTask(
    params: { ttl?: number | null; pollInterval?: number },
    requestId: RequestId,
    request: Request,
    sessionId?: string,
  ): Promise<Task> {
    const ttl = Math.min(params.ttl ?? MAX_TTL_MS, MAX_TTL_MS);
    return super.createTask({ ttl, pollInterval: POLL_INTERVAL_MS }, requestId, request, sessionId);
  }

  override async updateTaskStatus(taskId: string, status: Task["status"], message?: string, sessionId?: string): Promise<void> {
    await super.updateTaskStatus(taskId, status, message, sessionId);
    if (status === "cancelled") this.working.get(taskId)?.abort();
  }
}

export class WaitTasks {
  readonly store = new WaitTaskStore();

  /** Whether one more wait may start as a task. */
  get full(): boolean {
    return this.store.working.size >= MAX_WORKING;
  }

  /**
   * Make the task of `request`, answer it at once, and run `wait` in the background; its answer is
   * stored as the task's result (`failed` when it is a tool error). `ended` stops the wait too.
   */
  async start(
    request: { id: RequestId; params: { task?: { ttl?: number } } } & Request,
    ended: AbortSignal,
    wait: (signal: AbortSignal) => Promise<CallToolResult>,
  ): Promise<CreateTaskResult> {
    const task = await this.store.createTask({ ttl: request.params.task?.ttl }, request.id, request);
    const stop = new AbortController();
    this.store.working.set(task.taskId, stop);
    void wait(AbortSignal.any([stop.signal, ended]))
      .then((result) => this.store.storeTaskResult(task.taskId, result.isError ? "failed" : "completed", result))
      // A task cancelled or expired meanwhile keeps no result: nothing is waiting for it.
      .catch(() => undefined)
      .finally(() => this.store.working.delete(task.taskId));
    return { task };
  }
}
