/**
 * An MCP client as an agent would have one: the SDK's Client over stdio to a spawned `derun mcp`.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import * as fs from "node:fs";
import { ByteCheck, type Digest } from "./files.ts";

export interface McpSession extends AsyncDisposable {
  /** Calls a tool; throws on an error result, returns its structuredContent. */
  call(name: string, args: Record<string, unknown>): Promise<any>;
  /** tools/list, as a client does after initialize. */
  listTools(): Promise<unknown>;
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
    listTools: () => client.listTools(),
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

/**
 * Reads a whole transcript with derun_read_output from cursor "0" to eof (`maxBytes` per call, or
 * the tool's default), checking that each chunk starts where the last ended; the bytes' digest.
 */
export async function readTranscript(mcp: McpSession, sessionId: string, encoding: "base64" | "text", maxBytes?: number): Promise<Digest> {
  const check = new ByteCheck();
  let cursor = "0";
  for (;;) {
    const result = await mcp.call("derun_read_output", {
      session_id: sessionId,
      cursor,
      encoding,
      ...(maxBytes === undefined ? {} : { max_bytes: maxBytes }),
    });
    for (const chunk of result.chunks) {
      if (chunk.start_cursor !== String(check.bytes))
        throw new Error(`${encoding}: chunk starts at ${chunk.start_cursor}, expected ${check.bytes}`);
      check.update(encoding === "base64" ? Buffer.from(chunk.data_base64, "base64") : Buffer.from(chunk.data, "utf8"));
    }
    cursor = result.next_cursor;
    if (result.eof) return check.digest();
  }
}

/** The pid of the `derun mcp` serving `root` (its environment names the root). */
export function mcpPid(binary: string, root: string): number | undefined {
  for (const pid of fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      if (argv[0] !== binary || argv[1] !== "mcp") continue;
      if (fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(`DERUN_STATE_ROOT=${root}`)) return Number(pid);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

/** CPU time (user + system, ms) the process has used so far (Linux: /proc/<pid>/stat, in clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
