/**
 * An MCP client as an agent would have one: the SDK's Client over stdio to a spawned `derun mcp`.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

export interface McpSession extends AsyncDisposable {
  /** Calls a tool; throws on an error result, returns its structuredContent. */
  call(name: string, args: Record<string, unknown>): Promise<any>;
}

export async function connectMcp(derun: string, env: Record<string, string>): Promise<McpSession> {
  const client = new Client({ name: "derun-bench", version: "0" });
  await client.connect(new StdioClientTransport({ command: derun, args: ["mcp"], env, stderr: "inherit" }));
  return {
    async call(name, args) {
      const answer = await client.callTool({ name, arguments: args });
      if (answer.isError) throw new Error(`${name}: ${JSON.stringify(answer.content)}`);
      return answer.structuredContent;
    },
    [Symbol.asyncDispose]: () => client.close(),
  };
}

/** Until `derun run` has created the session (it does so before its command starts). */
export async function untilSessionExists(mcp: McpSession, sessionId: string): Promise<void> {
  for (;;) {
    try {
      await mcp.call("derun_get_session", { session_id: sessionId });
      return;
    } catch {
      await Bun.sleep(10);
    }
  }
}
