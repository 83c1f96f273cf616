/**
 * The line transport's held calls, below the SDK (its messages seen as they are passed on): a call
 * read while 16 are out is held, and passed on, in the order read, as soon as one of those ends,
 * by an answer or by a cancel (the SDK writes no answer to a cancelled call, so nothing else would
 * come along to pass it on), before any call read after it.
 */
import { expect, test } from "bun:test";
import { PassThrough } from "node:stream";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { LineTransport } from "../../src/mcp/line-transport.ts";
import { MAX_IN_FLIGHT } from "../../src/mcp/requests-out.ts";

const call = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "x", arguments: {} } });
const cancel = (id: number) => JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } });

async function transportSeeing(): Promise<{ input: PassThrough; passed: number[]; transport: LineTransport }> {
  const input = new PassThrough();
  const transport = new LineTransport(input, new PassThrough());
  const passed: number[] = [];
  transport.onmessage = (message: JSONRPCMessage) => {
    if ("id" in message && typeof message.id === "number") passed.push(message.id);
  };
  await transport.start();
  return { input, passed, transport };
}

/** Until the transport has read what was written (the stream delivers on a later turn). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

test("a held call goes on when cancels make room, with nothing else arriving, and before a call read after it", async () => {
  const { input, passed, transport } = await transportSeeing();
  const out = Array.from({ length: MAX_IN_FLIGHT }, (_, i) => i + 1);
  input.write(`${[...out, 17].map(call).join("\n")}\n`);
  await settle();
  expect(passed).toEqual(out);
  expect(transport.unanswered).toBe(MAX_IN_FLIGHT + 1);
  // One chunk: the cancel of call 1, then call 18. 17 was read first, and goes first.
  input.write(`${cancel(1)}\n${call(18)}\n`);
  await settle();
  expect(passed).toEqual([...out, 17]);
  // The other cancels, and nothing after them: 18 goes on all the same.
  input.write(`${out.slice(1).map(cancel).join("\n")}\n`);
  await settle();
  expect(passed).toEqual([...out, 17, 18]);
  expect(transport.unanswered).toBe(2);
  await transport.close();
});
