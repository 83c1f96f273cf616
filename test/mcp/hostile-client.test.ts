/**
 * A hostile client over real stdio to a real `derun mcp` (issue 43): a thousand waits at once do
 * not starve the line (the excess is refused at once, naming the cap; pings, lists and cancels are
 * read and answered meanwhile); a line over the 4 MiB bound is refused as it comes, with its id,
 * in bounded memory; a line of too many small keys is refused before it is parsed; and a client
 * that goes away (stdin closed, or stdin and stdout) has the server exit within a second.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { MAX_WAITS } from "../../src/mcp/wait-cap.ts";
import { derunArgv, derunEnv, REPO_ROOT, tempDir } from "../helpers/cli.ts";
import { untilTrue } from "../helpers/until.ts";
import { type RawServer, startRawServer, startServerIntoFifo } from "./_raw-server.ts";

const TIMEOUT = 120_000;
const MiB = 1024 * 1024;
const WAITS = 1000;

const root = tempDir("derun-mcp-hostile-");
let live: ReturnType<typeof Bun.spawn>;

beforeAll(async () => {
  // A session that runs and prints nothing: a derun_wait_output on it waits its whole timeout.
  live = Bun.spawn([...derunArgv(), "run", "--session-id", "live", "--", "sleep", "600"], {
    env: derunEnv(root.path),
    stdio: ["ignore", "ignore", "ignore"],
    cwd: REPO_ROOT,
  });
  await untilTrue("the live session", () => fs.existsSync(path.join(root.path, "sessions/live/meta.json")));
});
afterAll(async () => {
  // SIGTERM: derun run passes it to its command and ends, so no sleep outlives the test.
  live.kill("SIGTERM");
  await live.exited;
  root[Symbol.dispose]();
});

const wait = (id: number, timeoutMs = 60_000) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params:
      id % 2
        ? { name: "derun_wait_output", arguments: { session_id: "live", cursor: "0", timeout_ms: timeoutMs } }
        : { name: "derun_wait_command", arguments: { timeout_ms: timeoutMs } },
  });
const cancel = (id: number) => JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } });
const answerOf = (server: RawServer, id: unknown) => server.answers.find((a) => a.id === id);
const refused = (answer: Record<string, any>) => answer.result?.structuredContent?.error?.code === "too_many_waits";
const hwmBytes = (pid: number): number => Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;

/** Sends `line` and resolves with the milliseconds until its answer (id `id`) came. */
async function timed(server: RawServer, id: string, line: string): Promise<number> {
  const sent = performance.now();
  server.send(line);
  await server.until(() => answerOf(server, id) !== undefined);
  return performance.now() - sent;
}

/** `count` waits (ids 1..count) sent in one write, then a tools/list; resolves once it is answered. */
async function thousandWaits(server: RawServer, count = WAITS): Promise<number> {
  server.write(`${Array.from({ length: count }, (_, i) => wait(i + 1)).join("\n")}\n`);
  return timed(server, "list", JSON.stringify({ jsonrpc: "2.0", id: "list", method: "tools/list" }));
}

describe("derun mcp under a hostile client", () => {
  test(
    "1,000 pending waits: the excess is refused at once naming the cap; pings, lists and cancels go on; stdin closed -> exit within 1 s",
    async () => {
      await using server = startRawServer(root.path);
      const listMs = await thousandWaits(server);
      await server.until((answers) => answers.filter(refused).length === WAITS - MAX_WAITS);
      const refusal = server.answers.find(refused)!;
      expect(refusal.result.isError).toBe(true);
      expect(refusal.result.content[0].text).toContain(`at most ${MAX_WAITS} derun_wait_command/derun_wait_output calls`);
      // Every answer so far is a refusal or the list: the waits let in still wait.
      expect(server.answers.filter((a) => a.id !== "list" && !refused(a))).toEqual([]);
      const pings: number[] = [];
      for (let i = 0; i < 10; i++) {
        const method = i % 2 ? "ping" : "tools/list";
        pings.push(await timed(server, `p${i}`, JSON.stringify({ jsonrpc: "2.0", id: `p${i}`, method })));
      }
      console.log(
        `tools/list behind ${WAITS} waits: ${listMs.toFixed(0)} ms; then pings/lists: ${pings.map((ms) => ms.toFixed(0)).join(", ")} ms`,
      );
      // The bound is 100 ms (issue 43); a loaded test machine gets ten times that. Before: no answer for a minute.
      expect(Math.max(...pings)).toBeLessThan(1000);

      // A cancel is read while the waits pend: the cancelled wait's place goes to a new one.
      const admitted = Array.from({ length: WAITS }, (_, i) => i + 1).filter((id) => !refused(answerOf(server, id) ?? {}));
      expect(admitted).toHaveLength(MAX_WAITS);
      server.send(cancel(admitted[0]!));
      server.send(wait(2001, 200));
      await server.until(() => answerOf(server, 2001) !== undefined);
      expect(answerOf(server, 2001)!.result.structuredContent).toMatchObject({ timed_out: true });

      const closed = performance.now();
      expect(await server.end()).toBe(0);
      const exitMs = performance.now() - closed;
      console.log(`stdin closed with ${MAX_WAITS - 1} waits pending: exit after ${exitMs.toFixed(0)} ms`);
      expect(exitMs).toBeLessThan(1000);
      // Each wait still pending got its one answer at the shutdown; the cancelled one none.
      for (const id of admitted.slice(1)) expect(answerOf(server, id)?.result.structuredContent).toMatchObject({ timed_out: true });
      expect(answerOf(server, admitted[0]!)).toBeUndefined();
    },
    TIMEOUT,
  );

  test.skipIf(process.platform !== "linux")(
    "stdin and stdout closed with waits pending: the server exits within 1 s",
    async () => {
      using dir = tempDir();
      const { server, answers: reader } = startServerIntoFifo(root.path, dir.path);
      try {
        server.stdin.write(`${Array.from({ length: 100 }, (_, i) => wait(i + 1)).join("\n")}\n`);
        server.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: "ping", method: "ping" })}\n`);
        await server.stdin.flush();
        let seen = "";
        const buffer = Buffer.alloc(1 << 16);
        await untilTrue("the ping's answer", () => {
          try {
            seen += buffer.toString("utf8", 0, fs.readSync(reader, buffer));
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
          }
          return seen.includes('"id":"ping"');
        });
        fs.closeSync(reader); // the client is gone: nobody reads stdout any more
        const closed = performance.now();
        await server.stdin.end();
        const status = await Promise.race([server.exited, Bun.sleep(10_000).then(() => "running")]);
        const exitMs = performance.now() - closed;
        console.log(`stdin and stdout closed with ${MAX_WAITS} waits pending: exit ${status} after ${exitMs.toFixed(0)} ms`);
        expect(status).toBe(0);
        expect(exitMs).toBeLessThan(1000);
      } finally {
        server.kill("SIGKILL");
      }
    },
    TIMEOUT,
  );

  test.skipIf(process.platform !== "linux")(
    "a 100 MB line is refused with its id before its end is sent, dropped in bounded memory, and the next line is answered",
    async () => {
      await using server = startRawServer(root.path);
      server.send(JSON.stringify({ jsonrpc: "2.0", id: 0, method: "ping" }));
      await server.until(() => answerOf(server, 0) !== undefined);
      const before = hwmBytes(server.pid);
      server.write('{"jsonrpc":"2.0","id":"huge","method":"tools/call","params":{"name":"derun_list_sessions","arguments":{"pad":"');
      const chunk = "a".repeat(MiB);
      for (let i = 0; i < 5; i++) server.write(chunk);
      // 5 MiB of the line sent, 95 to come: the refusal is here already.
      await server.until(() => answerOf(server, "huge") !== undefined);
      expect(answerOf(server, "huge")!.error).toMatchObject({ code: -32600, message: expect.stringContaining("longer than 4 MiB") });
      for (let i = 5; i < 100; i++) server.write(chunk);
      server.send('"}}}');
      server.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }));
      await server.until(() => answerOf(server, 1) !== undefined);
      const grown = hwmBytes(server.pid) - before;
      console.log(`100 MB line: peak resident memory grew by ${(grown / MiB).toFixed(0)} MiB`);
      expect(grown).toBeLessThan(64 * MiB);
      expect(server.answers.map((a) => a.id)).toEqual([0, "huge", 1]);
    },
    TIMEOUT,
  );

  test(
    "a long line whose id comes last (the SDK's order) is answered with that id once its end is read",
    async () => {
      await using server = startRawServer(root.path);
      const pad = "a".repeat(5 * MiB);
      server.send(`{"method":"tools/call","params":{"name":"derun_list_sessions","arguments":{"pad":"${pad}"}},"jsonrpc":"2.0","id":77}`);
      server.send(JSON.stringify({ jsonrpc: "2.0", id: 78, method: "ping" }));
      await server.until(() => answerOf(server, 78) !== undefined);
      expect(server.answers.map((a) => a.id)).toEqual([77, 78]);
      expect(answerOf(server, 77)!.error.code).toBe(-32600);
    },
    TIMEOUT,
  );

  test.skipIf(process.platform !== "linux")(
    "a line of 330,000 small keys under the bound is refused before it is parsed, in bounded memory",
    async () => {
      await using server = startRawServer(root.path);
      server.send(JSON.stringify({ jsonrpc: "2.0", id: 0, method: "ping" }));
      await server.until(() => answerOf(server, 0) !== undefined);
      const before = hwmBytes(server.pid);
      const args = `{${Array.from({ length: 330_000 }, (_, i) => `"k${i}":1`).join(",")}}`;
      const line = `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"derun_list_sessions","arguments":${args}},"id":"keys"}`;
      expect(line.length).toBeLessThan(4 * MiB);
      server.send(line);
      await server.until(() => answerOf(server, "keys") !== undefined);
      const grown = hwmBytes(server.pid) - before;
      console.log(`${(line.length / MiB).toFixed(1)} MB line of small keys: peak resident memory grew by ${(grown / MiB).toFixed(0)} MiB`);
      expect(answerOf(server, "keys")!.error).toMatchObject({ code: -32600, message: expect.stringContaining("more than 10000 values") });
      // Parsed and checked, it grew the server by about 470 MiB.
      expect(grown).toBeLessThan(100 * MiB);
    },
    TIMEOUT,
  );
});
