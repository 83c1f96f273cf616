/**
 * Requests in flight over real stdio, below any client library: a client with more long polls out
 * than the other calls that run at once (16) can still cancel them and ping, and each is answered,
 * also when stdin closes meanwhile (waits have their own cap, 32: test/mcp/hostile-client.test.ts);
 * a rejected line that reuses the id of a request in flight does not stand for that request's
 * answer at shutdown; a last request without its newline is answered.
 */
import { describe, expect, test } from "bun:test";
import { tempDir } from "../helpers/cli.ts";
import { startRawServer, type RawServer } from "./_raw-server.ts";

/** The calls other than waits that `derun mcp` runs at once (src/mcp/requests-out.ts MAX_IN_FLIGHT); waits are not held behind them. */
const AT_ONCE = 16;
const TIMEOUT = 60_000;

const waitCommand = (id: number, timeoutMs: number) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "derun_wait_command", arguments: { timeout_ms: timeoutMs } },
  });
const cancel = (id: number) => JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } });
const ping = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" });
const idsOf = (answers: readonly Record<string, any>[]) => answers.map((a) => a.id);

/** Sends `count` waits (ids 1..count) of `timeoutMs`, then a ping; resolves with their ids once the ping is answered (every wait read). */
async function waitsRead(server: RawServer, count: number, timeoutMs: number): Promise<number[]> {
  const ids = Array.from({ length: count }, (_, i) => i + 1);
  for (const id of ids) server.send(waitCommand(id, timeoutMs));
  server.send(ping(100));
  await server.until((answers) => idsOf(answers).includes(100));
  return ids;
}

describe("derun mcp with requests in flight", () => {
  test(
    "more long polls than run at once: a ping is answered, every cancel is taken, the cancelled get no answer",
    async () => {
      using root = tempDir();
      await using server = startRawServer(root.path);
      // Nothing ends in this state root: each wait would last its whole minute.
      const waits = await waitsRead(server, AT_ONCE + 4, 60_000);
      for (const id of waits) server.send(cancel(id));
      server.send(ping(101));
      await server.until((answers) => idsOf(answers).includes(101));
      // A call after the cancels runs at once: the cancelled ones no longer count.
      server.send(
        JSON.stringify({ jsonrpc: "2.0", id: 102, method: "tools/call", params: { name: "derun_list_sessions", arguments: {} } }),
      );
      await server.until((answers) => idsOf(answers).includes(102));
      expect(await server.end()).toBe(0);
      expect(idsOf(server.answers).filter((id) => waits.includes(id))).toEqual([]);
    },
    TIMEOUT,
  );

  test(
    "a wait past the 16 calls run at once is not held: it runs, and the long polls cancelled are not answered",
    async () => {
      using root = tempDir();
      await using server = startRawServer(root.path);
      const polls = Array.from({ length: AT_ONCE }, (_, i) => i + 1);
      for (const id of polls) server.send(waitCommand(id, 60_000));
      server.send(waitCommand(17, 300));
      server.send(ping(100));
      await server.until((answers) => idsOf(answers).includes(100));
      for (const id of polls) server.send(cancel(id));
      await server.until((answers) => idsOf(answers).includes(17));
      expect(server.answers.find((a) => a.id === 17)?.result.structuredContent).toMatchObject({ timed_out: true });
      expect(idsOf(server.answers).filter((id) => polls.includes(id))).toEqual([]);
    },
    TIMEOUT,
  );

  test(
    "more short waits than run at once: each is answered once, the held ones after the first",
    async () => {
      using root = tempDir();
      await using server = startRawServer(root.path);
      const waits = Array.from({ length: AT_ONCE + 8 }, (_, i) => i + 1);
      for (const id of waits) server.send(waitCommand(id, 200));
      await server.until((answers) => answers.length >= waits.length);
      expect(idsOf(server.answers).toSorted((a, b) => a - b)).toEqual(waits);
      for (const answer of server.answers) expect(answer.result.structuredContent).toMatchObject({ timed_out: true });
      expect(await server.end()).toBe(0);
    },
    TIMEOUT,
  );

  test(
    "stdin closed with more long polls out than run at once: each one read is answered, at once, and the server exits 0",
    async () => {
      using root = tempDir();
      await using server = startRawServer(root.path);
      const waits = await waitsRead(server, AT_ONCE + 4, 60_000);
      const ended = performance.now();
      expect(await server.end()).toBe(0);
      // Cancelled by the shutdown, not waited out (each wait would take its whole minute).
      expect(performance.now() - ended).toBeLessThan(30_000);
      const answered = server.answers.filter((a) => waits.includes(a.id));
      expect(answered.map((a) => a.id).toSorted((a, b) => a - b)).toEqual(waits);
      for (const answer of answered) expect(answer.result.structuredContent).toMatchObject({ timed_out: true });
    },
    TIMEOUT,
  );

  test(
    "a rejected line with the id of a wait in flight: the wait still gets its answer when stdin closes",
    async () => {
      using root = tempDir();
      await using server = startRawServer(root.path);
      server.send(waitCommand(70, 3000));
      server.send(JSON.stringify({ jsonrpc: "2.0", id: 70, method: "tools/call", params: 1 }));
      await server.until((answers) => answers.some((a) => a.id === 70 && a.error?.code === -32602));
      expect(await server.end()).toBe(0);
      const seventy = server.answers.filter((a) => a.id === 70);
      expect(seventy).toHaveLength(2);
      expect(seventy.find((a) => a.result)?.result.structuredContent).toMatchObject({ timed_out: true });
    },
    TIMEOUT,
  );

  test(
    "a last request without its newline, then the end of input: answered",
    async () => {
      using root = tempDir();
      await using server = startRawServer(root.path);
      server.send(ping(1));
      server.write(ping(93));
      expect(await server.end()).toBe(0);
      expect(idsOf(server.answers)).toEqual([1, 93]);
    },
    TIMEOUT,
  );
});
