/**
 * Long waits as tasks (MCP 2025-11-25 tasks): the SDK's own client, which runs a tool as a task when
 * the server lists it with `execution.taskSupport`, over real stdio to `derun mcp`; a real `derun
 * run` ends while the task waits in the background. A plain call of the same tool is answered as
 * always, and a task the client cancels is cancelled.
 */
import { describe, expect, test } from "bun:test";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { runDerun, tempDir } from "../helpers/cli.ts";
import { connectAgent } from "../helpers/agent.ts";
import { MODERN_ENVELOPE } from "../helpers/fuzz-messages.ts";
import { startRawServer } from "./_raw-server.ts";

const TIMEOUT = 60_000;

describe("derun_wait_command and derun_wait_output as tasks", () => {
  test(
    "a task-capable client gets a task at once and the command's end as its result",
    async () => {
      using root = tempDir();
      await using agent = await connectAgent(root.path);
      const { client } = agent;
      expect(client.getServerCapabilities()?.tasks?.requests?.tools?.call).toBeDefined();
      const { tools } = await client.listTools();
      const taskTools = tools.filter((t) => t.execution?.taskSupport === "optional").map((t) => t.name);
      expect(taskTools.sort()).toEqual(["derun_wait_command", "derun_wait_output"]);

      const stream = client.experimental.tasks.callToolStream(
        { name: "derun_wait_command", arguments: { timeout_ms: 60_000 } },
        CallToolResultSchema,
      );
      const first = await stream.next();
      expect(first.value?.type).toBe("taskCreated");
      const taskId = (first.value as { task: { taskId: string } }).task.taskId;
      expect((await client.experimental.tasks.getTask(taskId)).status).toBe("working");
      // Meanwhile the connection serves other calls: the wait is in the background.
      expect((await agent.call("derun_list_sessions")).isError).toBe(false);

      const run = await runDerun(["run", "--session-id", "ends", "--", "sh", "-c", "echo finished; exit 3"], {
        stateRoot: root.path,
      });
      expect(run.exitCode).toBe(3);
      let result: any;
      for await (const message of stream) if (message.type === "result") result = message.result;
      expect(result.structuredContent.timed_out).toBe(false);
      expect(result.structuredContent.session).toMatchObject({ session_id: "ends", exit_code: 3 });
      expect(result.content[0].text).toContain("finished");
      expect((await client.experimental.tasks.getTask(taskId)).status).toBe("completed");

      // Without a task, the same tool answers in the call, as always.
      const plain = await agent.call("derun_wait_command", { timeout_ms: 1 });
      expect(plain.result.timed_out).toBe(true);
    },
    TIMEOUT,
  );

  test(
    "a cancelled task stops; a tool that is no wait, and a task in the 2026 era, are refused in one line",
    async () => {
      using root = tempDir();
      await using agent = await connectAgent(root.path);
      const { client } = agent;
      await client.listTools();
      const stream = client.experimental.tasks.callToolStream(
        { name: "derun_wait_command", arguments: { timeout_ms: 60_000 } },
        CallToolResultSchema,
      );
      const first = await stream.next();
      const taskId = (first.value as { task: { taskId: string } }).task.taskId;
      expect((await client.experimental.tasks.getTask(taskId)).status).toBe("working");
      await client.experimental.tasks.cancelTask(taskId);
      expect((await client.experimental.tasks.getTask(taskId)).status).toBe("cancelled");
      await stream.return(undefined);

      await using raw = startRawServer(root.path);
      const send = (id: number, params: object) => raw.send(JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params }));
      send(1, { name: "derun_list_sessions", arguments: {}, task: {} });
      send(2, { name: "derun_wait_command", arguments: { timeout_ms: 1 }, task: {}, _meta: MODERN_ENVELOPE });
      await raw.until((answers) => answers.length >= 2);
      for (const answer of raw.answers) {
        expect(answer.error.code).toBe(-32602);
        expect(answer.error.message).toMatch(/"derun_(list_sessions|wait_command)" does not run as a task/);
      }
    },
    TIMEOUT,
  );
});
