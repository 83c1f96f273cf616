/**
 * The line transport's wait cap, below the SDK: waits past MAX_WAITS are answered by the transport
 * at once (a tool error naming the cap, never passed on), are not held, and do not stop the line;
 * a cancel of a wait makes room for the next one.
 */
import { expect, test } from "bun:test";
import { PassThrough } from "node:stream";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { LineTransport } from "../../src/mcp/line-transport.ts";
import { MAX_WAITS } from "../../src/mcp/wait-cap.ts";

const wait = (id: number) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "derun_wait_command", arguments: {} } });
const cancel = (id: number) => JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } });
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

test("waits past the cap are refused at once by the transport; a ping behind them is passed on; a cancel makes room", async () => {
  const input = new PassThrough();
  const output = new PassThrough();
  const written: Record<string, any>[] = [];
  output.on("data", (chunk: Buffer) => {
    for (const line of chunk.toString().split("\n").filter(Boolean)) written.push(JSON.parse(line));
  });
  const transport = new LineTransport(input, output);
  const passed: (string | number)[] = [];
  transport.onmessage = (message: JSONRPCMessage) => void ("id" in message && message.id !== undefined && passed.push(message.id));
  await transport.start();
  const ids = Array.from({ length: MAX_WAITS + 5 }, (_, i) => i + 1);
  input.write(`${ids.map(wait).join("\n")}\n${JSON.stringify({ jsonrpc: "2.0", id: "ping", method: "ping" })}\n`);
  await settle();
  expect(passed).toEqual([...ids.slice(0, MAX_WAITS), "ping"]);
  expect(written.map((answer) => answer.id)).toEqual(ids.slice(MAX_WAITS));
  for (const answer of written)
    expect(answer.result).toMatchObject({ isError: true, structuredContent: { error: { code: "too_many_waits" } } });
  input.write(`${cancel(1)}\n${wait(100)}\n`);
  await settle();
  expect(passed.at(-1)).toBe(100);
  await transport.close();
});
