/**
 * Long waits as tasks in the 2026-07-28 era, through the tasks extension: the MCP SDK's v2 client
 * pinned to 2026-07-28, declaring `io.modelcontextprotocol/tasks`, driven by the extension's own
 * requester (`@modelcontextprotocol/ext-tasks/client`) over real stdio to `derun mcp`, while a real
 * `derun run` ends. Then line by line: without the extension a wait is answered in the call, as
 * before, and the extension's methods refuse what they must.
 */
import { describe, expect, test } from "bun:test";
import { Client, type JSONRPCMessage } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { JsonValue } from "@modelcontextprotocol/ext-tasks/core";
import { createTaskSessionFromClient, resultFromTaskOutcome, type RawClientDispatch } from "@modelcontextprotocol/ext-tasks/client";
import { derunArgv, derunEnv, REPO_ROOT, runDerun, tempDir } from "../helpers/cli.ts";
import { MODERN_ENVELOPE } from "../helpers/fuzz-messages.ts";
import { startRawServer } from "./_raw-server.ts";

const TIMEOUT = 60_000;
const EXTENSION = "io.modelcontextprotocol/tasks";
const CAPABILITIES = { extensions: { [EXTENSION]: {} } };
const CLIENT_INFO = { name: "derun-ext-tasks", version: "0" };

/**
 * The v2 client pinned to 2026-07-28, declaring the extension, and the extension's session over it.
 * The SDK's 2026 codec refuses `resultType: "task"`, so the extension asks its host for a raw path
 * (its `rawDispatch`): requests written to the same transport under ids of their own, their answers
 * taken off it before the SDK sees them.
 */
async function connectWithTasks(stateRoot: string) {
  const client = new Client(CLIENT_INFO, { capabilities: CAPABILITIES, versionNegotiation: { mode: { pin: "2026-07-28" } } });
  const [command = process.execPath, ...args] = derunArgv();
  const transport = new StdioClientTransport({ command, args: [...args, "mcp"], env: derunEnv(stateRoot), cwd: REPO_ROOT, stderr: "pipe" });
  await client.connect(transport);
  const pending = new Map<string, (message: Record<string, any>) => void>();
  const deliver = transport.onmessage!;
  transport.onmessage = (message: JSONRPCMessage) => {
    const id = "id" in message ? message.id : undefined;
    const waiter = typeof id === "string" && !("method" in message) ? pending.get(id) : undefined;
    if (!waiter) return deliver(message);
    pending.delete(id as string);
    waiter(message);
  };
  let next = 0;
  const rawDispatch: RawClientDispatch = async (request) => {
    const id = `ext-${next++}`;
    const answered = new Promise<Record<string, any>>((resolve) => pending.set(id, resolve));
    await transport.send({ ...(request as object), jsonrpc: "2.0", id } as JSONRPCMessage);
    const answer = await answered;
    return "error" in answer ? { kind: "error", error: answer.error } : { kind: "result", result: answer.result as JsonValue };
  };
  const session = createTaskSessionFromClient(client, {
    endpointId: "derun-ext-tasks-test",
    rawDispatch,
    v2RequestFraming: { protocolVersion: "2026-07-28", clientInfo: CLIENT_INFO, clientCapabilities: CAPABILITIES },
  });
  return {
    client,
    session,
    [Symbol.asyncDispose]: async () => {
      await session.close();
      await client.close();
    },
  };
}

describe("derun_wait_command as a task through the tasks extension (2026-07-28)", () => {
  test(
    "the task comes back at once, polls working, and completes with the command's end; cancel stops another",
    async () => {
      using root = tempDir();
      await using agent = await connectWithTasks(root.path);
      const { client, session } = agent;
      expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
      expect(client.getServerCapabilities()?.extensions?.[EXTENSION]).toEqual({});
      expect(session.capabilities.execution).toBe(true);

      // Nothing has run yet: a call that came back as a task came back before its wait could end.
      const execution = await session.callTool("derun_wait_command", { timeout_ms: 30_000 });
      expect(execution.kind).toBe("task");
      if (execution.kind !== "task") throw new Error("not a task");
      const controller = session.task(execution.handle.taskId);
      const working = await controller.snapshot();
      expect(working.status).toBe("working");
      expect(working.retentionMs).toBe(600_000);
      expect(working.suggestedPollIntervalMs).toBe(1000);
      // Meanwhile the connection serves other calls: the wait is in the background.
      const listed = await client.callTool({ name: "derun_list_sessions", arguments: {} });
      expect(listed.isError).toBeFalsy();

      const run = await runDerun(["run", "--session-id", "ends", "--", "sh", "-c", "echo finished; exit 3"], {
        stateRoot: root.path,
      });
      expect(run.exitCode).toBe(3);
      const { outcome } = await execution.settle();
      expect(outcome.status).toBe("completed");
      const result = resultFromTaskOutcome(outcome) as Record<string, any>;
      expect(result.structuredContent.timed_out).toBe(false);
      expect(result.structuredContent.session).toMatchObject({ session_id: "ends", exit_code: 3 });
      expect(result.content[0].text).toContain("finished");
      expect((await controller.snapshot()).status).toBe("completed");

      // A second wait, cancelled: the task says so, and no result ever comes.
      const second = await session.callTool("derun_wait_command", { timeout_ms: 30_000 });
      if (second.kind !== "task") throw new Error("not a task");
      const secondTask = session.task(second.handle.taskId);
      expect((await secondTask.snapshot()).status).toBe("working");
      await secondTask.cancel();
      expect((await secondTask.snapshot()).status).toBe("cancelled");
      await second.close();

      // A short wait is answered in the call even with the extension declared.
      const short = await session.callTool("derun_wait_output", { session_id: "ends", timeout_ms: 1 });
      expect(short.kind).toBe("immediate");
    },
    TIMEOUT,
  );

  test(
    "raw lines: discover declares the extension; without it, or past 16 tasks, a wait answers in its call; tasks/* refuse what they must",
    async () => {
      using root = tempDir();
      await using raw = startRawServer(root.path);
      const withTasks = { ...MODERN_ENVELOPE, "io.modelcontextprotocol/clientCapabilities": CAPABILITIES };
      const send = (id: number, method: string, params: object, meta: object = withTasks) =>
        raw.send(JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } }));
      const byId = (id: number) => raw.answers.find((a) => a.id === id)!;
      const answered = (...ids: number[]) => raw.until((answers) => ids.every((id) => answers.some((a) => a.id === id)));

      send(1, "server/discover", {});
      send(2, "tools/call", { name: "derun_wait_command", arguments: { timeout_ms: 30_000 } }, MODERN_ENVELOPE);
      send(3, "tools/call", { name: "derun_wait_command", arguments: { timeout_ms: 30_000 } });
      await answered(1, 3);
      expect(byId(1).result.capabilities.extensions).toEqual({ [EXTENSION]: {} });
      expect(byId(1).result.capabilities.tasks).toBeUndefined();
      const task = byId(3).result;
      expect(task).toMatchObject({ resultType: "task", status: "working", ttlMs: 600_000, pollIntervalMs: 1000 });
      // Without the extension the same wait is still waiting in its call.
      expect(raw.answers.some((a) => a.id === 2)).toBe(false);

      send(4, "tasks/get", { taskId: task.taskId }, MODERN_ENVELOPE);
      send(5, "tasks/get", { taskId: "no-such-task" });
      send(6, "tasks/list", {});
      send(7, "tasks/result", { taskId: task.taskId });
      send(8, "tasks/update", { taskId: task.taskId, inputResponses: {} });
      send(9, "tasks/update", { taskId: task.taskId });
      await answered(4, 5, 6, 7, 8, 9);
      expect(byId(4).error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [EXTENSION]: {} } } } });
      expect(byId(5).error.code).toBe(-32602);
      // The extension has no tasks/list and no tasks/result (2025-11-25 methods).
      expect(byId(6).error.code).toBe(-32601);
      expect(byId(7).error.code).toBe(-32601);
      expect(byId(8).result).toMatchObject({ resultType: "complete" });
      expect(byId(9).error.code).toBe(-32602);

      // 15 more make 16 tasks at once, the bound; a 17th wait is answered in its call instead.
      const more = Array.from({ length: 16 }, (_, i) => 20 + i);
      for (const id of more) send(id, "tools/call", { name: "derun_wait_command", arguments: { timeout_ms: 30_000 } });
      await answered(...more.slice(0, 15));
      for (const id of more.slice(0, 15)) expect(byId(id).result.resultType).toBe("task");
      expect(raw.answers.some((a) => a.id === 35)).toBe(false);

      const run = await runDerun(["run", "--session-id", "raw", "--", "sh", "-c", "echo raw done"], { stateRoot: root.path });
      expect(run.exitCode).toBe(0);
      await answered(2, 35);
      for (const id of [2, 35])
        expect(byId(id).result).toMatchObject({ resultType: "complete", structuredContent: { session: { session_id: "raw" } } });
      // Polled as a client polls, until the task leaves `working` (its wait saw the same end).
      let polled = 40;
      for (let done = false; !done; polled++) {
        send(polled, "tasks/get", { taskId: task.taskId });
        await answered(polled);
        done = byId(polled).result.status !== "working";
        if (!done) await Bun.sleep(50);
      }
      const completed = byId(polled - 1).result;
      expect(completed).toMatchObject({ resultType: "complete", status: "completed", taskId: task.taskId });
      expect(completed.result).toMatchObject({ resultType: "complete", structuredContent: { session: { session_id: "raw" } } });
      expect(completed.result.content[0].text).toContain("raw done");

      // Cancelling an ended task is acknowledged and changes nothing.
      send(100, "tasks/cancel", { taskId: task.taskId });
      send(101, "tasks/get", { taskId: task.taskId });
      await answered(100, 101);
      expect(byId(100).result).toMatchObject({ resultType: "complete" });
      expect(byId(101).result.status).toBe("completed");
      // Exactly one answer per request: ids 1-9, 20-35, the polls, 100 and 101.
      expect(raw.answers.length).toBe(9 + 16 + (polled - 40) + 2);
      expect(await raw.end()).toBe(0);
    },
    TIMEOUT,
  );
});
