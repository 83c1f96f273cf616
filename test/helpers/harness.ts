/** Shared setup for the MCP tests: a real store in a temp state root, a real SDK Client. */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { openFileStore } from "../../src/file-store/index.ts";
import type { Store } from "../../src/core/store.ts";
import { silentLogger } from "../../src/core/log.ts";
import { createDerunServer } from "../../src/mcp/server.ts";

/** What a tool call answered, unpacked. */
export interface Answer {
  readonly isError: boolean;
  readonly text: string;
  readonly result: any;
}

export const call = async (client: Client, name: string, args: Record<string, unknown> = {}): Promise<Answer> => {
  const answer = await client.callTool({ name, arguments: args });
  const content = answer.content as { type: string; text: string }[];
  return { isError: answer.isError === true, text: content[0]!.text, result: answer.structuredContent };
};

export const tempRoot = (): string => fs.mkdtempSync(path.join(os.tmpdir(), "derun-mcp-test-"));

/** A store in a fresh temp root (made by `makeStore`) and a Client connected to a server on it, in memory. */
export const connectInMemory = async (
  makeStore: (root: string) => Store = (root) => openFileStore({ root }),
): Promise<{ root: string; store: Store; client: Client; [Symbol.asyncDispose](): Promise<void> }> => {
  const root = tempRoot();
  const store = makeStore(root);
  const server = createDerunServer({ store, log: silentLogger });
  const client = new Client({ name: "derun-test", version: "0" });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return {
    root,
    store,
    client,
    async [Symbol.asyncDispose]() {
      await client.close();
      await server.close();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
};

export const sessionOptions = (sessionId: string, transportMode = "pipe") => ({
  sessionId,
  command: ["sh", "-c", "test"],
  workingDirectory: "/",
  retentionSeconds: 3600,
  transportMode,
  ttyAttached: transportMode !== "pipe",
});

/** All bytes that text chunks carry, re-encoded; for comparing with what was written. */
export const textOf = (result: any): string => result.chunks.map((c: { data: string }) => c.data).join("");
