/**
 * Long waits as tasks: a client that asks derun_wait_command or derun_wait_output to run as a task
 * gets a task at once and the wait goes on in the background; the client polls the task and takes
 * the wait's answer once it ends (the command ended, output came, or the timeout). Bounded: at most
 * MAX_WORKING waits at once, each task kept at most MAX_TTL_MS, and every wait ends with the server
 * (its answer is stored, so the task still answers).
 *
 * This module is the store, shared by both protocol eras, and the 2025-11-25 wire (`params.task`,
 * `{ task }`, `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel`), registered on 2025-era
 * servers only (./server.ts): the SDK's v2 line keeps that vocabulary on the wire but has no runtime
 * for it. In 2026-07-28 tasks are an extension with a wire of its own (./wait-tasks-ext.ts).
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type Server,
  type StandardSchemaV1,
  type Task,
} from "@modelcontextprotocol/server";

/** The tools that may run as a task: the waits, which may take up to a minute. */
export const TASK_TOOLS: ReadonlySet<string> = new Set(["derun_wait_command", "derun_wait_output"]);
/** Waits running as tasks at once: as many as calls in flight (requests-out.ts's MAX_IN_FLIGHT). */
export const MAX_WORKING = 16;
/** How long a task and its answer are kept, at most and when the client names no ttl. */
export const MAX_TTL_MS = 10 * 60 * 1000;
/** The least a task is kept: a client asking 0 still gets to poll it. */
const MIN_TTL_MS = 10 * 1000;
/** How often a client is asked to poll `tasks/get`. */
const POLL_INTERVAL_MS = 1000;
/** Tasks listed per page of `tasks/list`. */
const PAGE = 10;
const RELATED_TASK = "io.modelcontextprotocol/related-task";

/** The server's `tasks` capability: tool calls may be tasks; tasks can be listed and cancelled. */
export const TASKS_CAPABILITY = { list: {}, cancel: {}, requests: { tools: { call: {} } } } as const;

const TERMINAL: ReadonlySet<Task["status"]> = new Set(["completed", "failed", "cancelled"]);

interface Entry {
  task: Task;
  result?: CallToolResult;
  readonly stop: AbortController;
  readonly ended: PromiseWithResolvers<void>;
  readonly expiry: ReturnType<typeof setTimeout>;
}

export class WaitTasks {
  readonly #tasks = new Map<string, Entry>();
  #working = 0;

  /** Whether one more wait may start as a task. */
  get full(): boolean {
    return this.#working >= MAX_WORKING;
  }

  /**
   * Make the task and run `wait` in the background; its answer is stored as the task's result
   * (`failed` when it is a tool error, the 2025-11-25 reading). `ended` stops the wait too. The task
   * is returned as it starts, for the caller to answer at once in its era's words.
   */
  start(ttl: number | undefined, ended: AbortSignal, wait: (signal: AbortSignal) => Promise<CallToolResult>): Task {
    const now = new Date().toISOString();
    // A ttl of 0 or less would drop the task before its first poll: kept at least MIN_TTL_MS.
    const kept = Math.min(Math.max(ttl ?? MAX_TTL_MS, MIN_TTL_MS), MAX_TTL_MS);
    const task: Task = {
      taskId: crypto.randomUUID(),
      status: "working",
      ttl: kept,
      createdAt: now,
      lastUpdatedAt: now,
      pollInterval: POLL_INTERVAL_MS,
    };
    const expiry = setTimeout(() => this.#drop(task.taskId), kept);
    expiry.unref();
    const entry: Entry = { task, stop: new AbortController(), ended: Promise.withResolvers<void>(), expiry };
    this.#tasks.set(task.taskId, entry);
    this.#working++;
    void wait(AbortSignal.any([entry.stop.signal, ended]))
      .then((result) => {
        // A task cancelled or expired meanwhile keeps no result: nothing is waiting for it.
        if (this.#tasks.get(task.taskId) !== entry || TERMINAL.has(entry.task.status)) return;
        entry.result = result;
        this.#settle(entry, result.isError ? "failed" : "completed");
      })
      .catch((error: unknown) => {
        // A wait that threw (its tool answers every failure as a result: this is derun's own fault)
        // ends the task, or tasks/result would wait until the task expires.
        if (this.#tasks.get(task.taskId) !== entry || TERMINAL.has(entry.task.status)) return;
        this.#settle(entry, "failed", `the wait failed: ${String(error instanceof Error ? error.message : error).slice(0, 200)}`);
      })
      .finally(() => this.#working--);
    return { ...task };
  }

  /** The task and its result (once it has one); `-32602` for an id that names none. */
  get(taskId: string): { readonly task: Task; readonly result?: CallToolResult } {
    const { task, result } = this.#entry(taskId);
    return { task: { ...task }, ...(result ? { result } : {}) };
  }

  /** Cancel a task that still works (its wait stops); false when it had ended already. */
  cancel(taskId: string): boolean {
    const entry = this.#entry(taskId);
    if (TERMINAL.has(entry.task.status)) return false;
    this.#settle(entry, "cancelled", "Client cancelled task execution.");
    entry.stop.abort();
    return true;
  }

  /** `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel`, on a 2025-era server. */
  register(server: Server): void {
    const byId = { params: TASK_ID_PARAMS };
    server.setRequestHandler("tasks/get", byId, ({ taskId }) => ({ ...this.#entry(taskId).task }));
    server.setRequestHandler("tasks/result", byId, async ({ taskId }, ctx) => {
      const entry = this.#entry(taskId);
      if (!TERMINAL.has(entry.task.status)) await Promise.race([entry.ended.promise, aborted(ctx.mcpReq.signal)]);
      const { result } = entry;
      // Cancelled, expired, or the client went away meanwhile: there is no answer to give.
      const status = this.#tasks.get(taskId) === entry ? entry.task.status : "expired";
      if (!result) throw invalid(`task ${taskId.slice(0, 100)} is ${status}: it has no result`);
      return { ...result, _meta: { ...result._meta, [RELATED_TASK]: { taskId } } };
    });
    server.setRequestHandler("tasks/list", { params: CURSOR_PARAMS }, ({ cursor }) => {
      const all = [...this.#tasks.values()].map((entry) => ({ ...entry.task }));
      const from = cursor === undefined ? 0 : all.findIndex((task) => task.taskId === cursor) + 1;
      if (cursor !== undefined && from === 0) throw invalid(`invalid cursor: ${cursor.slice(0, 100)}`);
      const page = all.slice(from, from + PAGE);
      return { tasks: page, ...(from + PAGE < all.length ? { nextCursor: page.at(-1)!.taskId } : {}), _meta: {} };
    });
    server.setRequestHandler("tasks/cancel", byId, ({ taskId }) => {
      if (!this.cancel(taskId)) throw invalid(`Cannot cancel task in terminal status: ${this.#entry(taskId).task.status}`);
      return { _meta: {}, ...this.#entry(taskId).task };
    });
  }

  #entry(taskId: string): Entry {
    const entry = this.#tasks.get(taskId);
    if (!entry) throw invalid(`Task not found: ${taskId.slice(0, 100)}`);
    return entry;
  }

  #settle(entry: Entry, status: Task["status"], message?: string): void {
    entry.task = { ...entry.task, status, lastUpdatedAt: new Date().toISOString(), ...(message ? { statusMessage: message } : {}) };
    entry.ended.resolve();
  }

  #drop(taskId: string): void {
    const entry = this.#tasks.get(taskId);
    if (!entry) return;
    this.#tasks.delete(taskId);
    entry.stop.abort();
    entry.ended.resolve();
  }
}

export const invalid = (message: string) => new ProtocolError(ProtocolErrorCode.InvalidParams, message);
const aborted = (signal: AbortSignal) => new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));

/**
 * The params of the task methods as Standard Schema, written out: ArkType is loaded only when a
 * request reads the sessions (./server.ts), and these are registered with every 2025-era server.
 */
const standard = <T>(check: (value: Record<string, unknown>) => T | string): StandardSchemaV1<unknown, T> => ({
  "~standard": {
    version: 1,
    vendor: "derun",
    validate: (value) => {
      const params = typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
      const out = check(params);
      return typeof out === "string" ? { issues: [{ message: out }] } : { value: out };
    },
  },
});
export const TASK_ID_PARAMS = standard(({ taskId }) => (typeof taskId === "string" ? { taskId } : "taskId must be a string"));
const CURSOR_PARAMS = standard(({ cursor }) =>
  cursor === undefined || typeof cursor === "string" ? { cursor: cursor as string | undefined } : "cursor must be a string",
);
