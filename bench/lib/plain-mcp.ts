/**
 * A plain JSON-RPC client over stdio, below any MCP library: its own pipes to a spawned
 * `derun mcp`, one request line out, `JSON.parse` of each line back. Issue 37's read figure is
 * measured from such a client: the SDK's Client checks every answer with its schemas, and at 64 KiB a
 * page that cost as much as the server's answer (the figure measured the client).
 */
import type { McpSession } from "./mcp-client.ts";

const NEWLINE = 0x0a;

export async function connectPlainMcp(derun: string, env: Record<string, string>): Promise<McpSession & { readonly pid: number }> {
  const proc = Bun.spawn([derun, "mcp"], { env, stdin: "pipe", stdout: "pipe", stderr: "inherit" });
  const waiting = new Map<number, { resolve: (answer: any) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  const reading = (async () => {
    let pending: Buffer | undefined;
    for await (const chunk of proc.stdout) {
      let bytes = pending ? Buffer.concat([pending, chunk]) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      for (let newline = bytes.indexOf(NEWLINE); newline >= 0; newline = bytes.indexOf(NEWLINE)) {
        const answer = JSON.parse(bytes.toString("utf8", 0, newline));
        bytes = bytes.subarray(newline + 1);
        waiting.get(answer.id)?.resolve(answer);
        waiting.delete(answer.id);
      }
      pending = bytes.length > 0 ? bytes : undefined;
    }
    // The server is gone: what it did not answer never will be.
    for (const { reject } of waiting.values()) reject(new Error(`derun mcp ended (exit ${await proc.exited}) without answering`));
    waiting.clear();
  })();
  const request = (method: string, params: unknown): Promise<any> => {
    const id = ++nextId;
    const answer = new Promise<any>((resolve, reject) => waiting.set(id, { resolve, reject }));
    proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    proc.stdin.flush();
    return answer;
  };
  const initialize = { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "derun-bench-plain", version: "0" } };
  const opened = await request("initialize", initialize);
  if (!opened.result) throw new Error(`initialize: ${JSON.stringify(opened.error)}`);
  proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  return {
    pid: proc.pid,
    async call(name, args) {
      const answer = await request("tools/call", { name, arguments: args });
      if (answer.error || answer.result.isError) throw new Error(`${name}: ${JSON.stringify(answer.error ?? answer.result.content)}`);
      return answer.result.structuredContent;
    },
    listTools: () => request("tools/list", {}),
    async [Symbol.asyncDispose]() {
      proc.stdin.end();
      await proc.exited;
      await reading;
    },
  };
}
