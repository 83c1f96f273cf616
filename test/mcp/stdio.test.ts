/**
 * End to end: the SDK's own Client over StdioClientTransport spawning `derun mcp`, reading
 * sessions that real `derun run` processes record in the same temporary state root.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import * as fs from "node:fs";
import * as path from "node:path";
import { derunArgv, derunEnv, REPO_ROOT, runDerun, tempDir } from "../helpers/cli.ts";
import { call, textOf } from "../helpers/harness.ts";

const root = tempDir("derun-mcp-e2e-");
/** Generous: these spawn real processes on a possibly busy CI machine; nothing asserts on time. */
const TIMEOUT = 30_000;
let client: Client;

beforeAll(async () => {
  client = new Client({ name: "derun-e2e", version: "0" });
  // The derun under test: the source, or the compiled binary when DERUN_TEST_BINARY is set.
  const [command = process.execPath, ...args] = derunArgv();
  await client.connect(
    new StdioClientTransport({ command, args: [...args, "mcp"], env: derunEnv(root.path), cwd: REPO_ROOT, stderr: "pipe" }),
  );
}, TIMEOUT);
afterAll(async () => {
  await client.close();
  root[Symbol.dispose]();
});

const outputBin = (id: string) => fs.readFileSync(path.join(root.path, "sessions", id, "output.bin"));

/** Start `derun run` in the background (pipe transport: its stdio are not terminals; output is read back from the store). */
const startRun = (id: string, command: string[]) =>
  Bun.spawn([...derunArgv(), "run", "--session-id", id, "--", ...command], {
    env: derunEnv(root.path),
    stdin: "ignore",
    stdout: "ignore",
    stderr: "ignore",
    cwd: REPO_ROOT,
  });

/** Until `derun run` has created the session (it does so before its command starts). */
const untilSessionExists = async (id: string) => {
  while ((await call(client, "derun_get_session", { session_id: id })).isError) await Bun.sleep(20);
};

describe("derun mcp over stdio", () => {
  test(
    "scenario 3: a client following with derun_wait_output receives every byte in order",
    async () => {
      const run = startRun("live-tail", ["sh", "-c", 'for i in 1 2 3 4 5 6; do printf "line %s\\n" $i; sleep 0.3; done']);
      await untilSessionExists("live-tail");
      let cursor = "0";
      let text = "";
      const states = new Set<string>();
      for (;;) {
        const { isError, result } = await call(client, "derun_wait_output", { session_id: "live-tail", cursor, timeout_ms: 20000 });
        expect(isError).toBe(false);
        expect(result.timed_out).toBe(false);
        if (result.chunks.length > 0) expect(Number(result.next_cursor)).toBeGreaterThan(Number(cursor));
        if (!result.eof) states.add(result.session_state);
        for (const chunk of result.chunks) expect(chunk.start_cursor).toBe(text.length === 0 ? "0" : String(Buffer.byteLength(text)));
        text += textOf(result);
        cursor = result.next_cursor;
        if (result.eof) break;
      }
      expect(await run.exited).toBe(0);
      expect(text).toBe("line 1\nline 2\nline 3\nline 4\nline 5\nline 6\n");
      expect(Buffer.from(text)).toEqual(outputBin("live-tail"));
      // The session was followed while it ran: some answers came before the end, with eof false.
      expect(states.size).toBeGreaterThan(0);
      for (const state of states) expect(["starting", "running"]).toContain(state);
    },
    TIMEOUT,
  );

  test(
    "scenario 4: replay from cursor 0 after completion gives hello-world, next_cursor 11, eof",
    async () => {
      const done = await runDerun(["run", "--session-id", "replay", "--", "sh", "-c", "printf hello; printf -- -world >&2"], {
        stateRoot: root.path,
      });
      expect(done.exitCode).toBe(0);
      const { result } = await call(client, "derun_read_output", { session_id: "replay", cursor: "0" });
      expect(textOf(result)).toBe("hello-world");
      expect(result).toMatchObject({ next_cursor: "11", at_tail: true, eof: true, session_state: "exited" });
      expect(result.chunks.map((c: any) => c.channel)).toEqual(["stdout", "stderr"]);
    },
    TIMEOUT,
  );

  test(
    "scenario 6: 256 KiB read 4096 bytes at a time: cursors advance, bytes equal output.bin",
    async () => {
      const size = 256 * 1024;
      const done = await runDerun(["run", "--session-id", "large", "--", "head", "-c", String(size), "/dev/urandom"], {
        stateRoot: root.path,
      });
      expect(done.exitCode).toBe(0);
      const parts: Buffer[] = [];
      let cursor = "0";
      for (;;) {
        const { result } = await call(client, "derun_read_output", { session_id: "large", cursor, max_bytes: 4096, encoding: "base64" });
        let read = 0;
        for (const chunk of result.chunks) {
          const bytes = Buffer.from(chunk.data_base64, "base64");
          expect(Number(chunk.end_cursor) - Number(chunk.start_cursor)).toBe(bytes.length);
          read += bytes.length;
          parts.push(bytes);
        }
        expect(read).toBeGreaterThan(0);
        expect(read).toBeLessThanOrEqual(4096);
        expect(Number(result.next_cursor)).toBe(Number(cursor) + read);
        cursor = result.next_cursor;
        if (result.eof) break;
      }
      const all = Buffer.concat(parts);
      expect(all.length).toBe(size);
      expect(all).toEqual(outputBin("large"));
    },
    TIMEOUT,
  );

  test(
    "scenario 6 in text: multi-byte text read 4096 bytes at a time comes back whole, never split",
    async () => {
      using dir = tempDir();
      const original = "résumé naïve € 😀 ✓ 漢字 ".repeat(4000);
      fs.writeFileSync(path.join(dir.path, "text.txt"), original);
      const done = await runDerun(["run", "--session-id", "large-text", "--", "cat", path.join(dir.path, "text.txt")], {
        stateRoot: root.path,
      });
      expect(done.exitCode).toBe(0);
      let cursor = "0";
      let text = "";
      for (;;) {
        const { result } = await call(client, "derun_read_output", { session_id: "large-text", cursor, max_bytes: 4096 });
        for (const chunk of result.chunks) {
          expect(chunk.data).not.toContain("\uFFFD");
          expect(Buffer.byteLength(chunk.data)).toBe(Number(chunk.end_cursor) - Number(chunk.start_cursor));
        }
        text += textOf(result);
        if (result.eof) break;
        expect(Number(result.next_cursor) - Number(cursor)).toBeLessThanOrEqual(4096);
        cursor = result.next_cursor;
      }
      expect(text).toBe(original);
    },
    TIMEOUT,
  );

  test(
    "scenario 10: an unknown session gives the same session_not_found result from read and wait",
    async () => {
      const read = await call(client, "derun_read_output", { session_id: "missing" });
      const wait = await call(client, "derun_wait_output", { session_id: "missing", cursor: "0" });
      expect(read).toEqual(wait);
      expect(read).toMatchObject({ isError: true, text: "session not found: missing", result: { error: { code: "session_not_found" } } });
    },
    TIMEOUT,
  );

  test(
    "a wait on a session whose derun was SIGKILLed returns, not timed out, with state failed",
    async () => {
      const run = startRun("killed", ["sh", "-c", "printf started; exec sleep 30"]);
      await untilSessionExists("killed");
      let childPid = 0;
      try {
        const first = (await call(client, "derun_wait_output", { session_id: "killed", cursor: "0", timeout_ms: 20000 })).result;
        expect(textOf(first)).toBe("started");
        expect(first.eof).toBe(false);
        childPid = (await call(client, "derun_get_session", { session_id: "killed" })).result.session.pid;
        const waiting = call(client, "derun_wait_output", { session_id: "killed", cursor: "7", timeout_ms: 60000 });
        run.kill("SIGKILL");
        const { result } = await waiting;
        expect(result).toMatchObject({ chunks: [], timed_out: false, eof: true, session_state: "failed", next_cursor: "7" });
      } finally {
        run.kill("SIGKILL");
        if (childPid > 0) {
          try {
            process.kill(childPid, "SIGKILL");
          } catch {}
        }
      }
    },
    TIMEOUT,
  );
});

describe("derun mcp lifecycle", () => {
  const initialize = `${JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } },
  })}\n`;

  const startServer = () =>
    Bun.spawn([...derunArgv(), "mcp"], { env: derunEnv(root.path), stdin: "pipe", stdout: "pipe", stderr: "pipe", cwd: REPO_ROOT });

  test(
    "stdin closing ends the server with status 0; stdout carried only JSON-RPC",
    async () => {
      const server = startServer();
      server.stdin.write(initialize);
      server.stdin.end();
      expect(await server.exited).toBe(0);
      const lines = (await new Response(server.stdout).text()).split("\n").filter(Boolean);
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({ jsonrpc: "2.0", id: 1, result: { serverInfo: { name: "derun" } } });
    },
    TIMEOUT,
  );

  /**
   * The SDK's Client over stdio to `derun mcp`, through sh, which writes derun's exit status to `statusFile` (the SDK's transport does not
   * tell it).
   */
  const clientWithStatus = (statusFile: string) => {
    const transport = new StdioClientTransport({
      command: "sh",
      args: ["-c", '"$@"; echo $? > "$0"', statusFile, ...derunArgv(), "mcp"],
      env: derunEnv(root.path),
      cwd: REPO_ROOT,
      stderr: "pipe",
    });
    return { transport, client: new Client({ name: "derun-eof", version: "0" }) };
  };

  test(
    "a wait in flight when stdin closes is answered (the SDK's Client over stdio), then the server exits 0",
    async () => {
      const run = startRun("eof-wait", ["sh", "-c", "printf started; exec sleep 30"]);
      using dir = tempDir();
      const statusFile = path.join(dir.path, "status");
      const { transport, client: eofClient } = clientWithStatus(statusFile);
      let childPid = 0;
      try {
        await eofClient.connect(transport);
        await untilSessionExists("eof-wait");
        const first = (await call(eofClient, "derun_wait_output", { session_id: "eof-wait", cursor: "0", timeout_ms: 20000 })).result;
        expect(textOf(first)).toBe("started");
        childPid = (await call(eofClient, "derun_get_session", { session_id: "eof-wait" })).result.session.pid;
        // Nothing comes past cursor 7 while the session lives: this wait would last a minute.
        const waiting = call(eofClient, "derun_wait_output", { session_id: "eof-wait", cursor: "7", timeout_ms: 60000 });
        await transport.close(); // ends the server's stdin, then waits for the process to end
        const { isError, result } = await waiting;
        expect(isError).toBe(false);
        expect(result).toMatchObject({ session_id: "eof-wait", chunks: [], next_cursor: "7", eof: false, session_state: "running" });
        expect(result.waited_ms).toBeLessThan(60000);
        expect(fs.readFileSync(statusFile, "utf8").trim()).toBe("0");
      } finally {
        run.kill("SIGKILL");
        if (childPid > 0) {
          try {
            process.kill(childPid, "SIGKILL");
          } catch {}
        }
      }
    },
    TIMEOUT,
  );

  test(
    "a wait the client cancelled is not waited for when stdin closes (the SDK answers nothing to it)",
    async () => {
      const run = startRun("eof-cancel", ["sh", "-c", "exec sleep 30"]);
      using dir = tempDir();
      const statusFile = path.join(dir.path, "status");
      const { transport, client: cancelClient } = clientWithStatus(statusFile);
      const logFile = path.join(root.path, "logs", "derun.jsonl");
      const unanswered = () =>
        fs.existsSync(logFile)
          ? fs
              .readFileSync(logFile, "utf8")
              .split("\n")
              .filter((l) => l.includes('"mcp_unanswered"')).length
          : 0;
      const before = unanswered();
      try {
        await cancelClient.connect(transport);
        await untilSessionExists("eof-cancel");
        const cancel = new AbortController();
        const waiting = cancelClient.callTool(
          { name: "derun_wait_output", arguments: { session_id: "eof-cancel", cursor: "0", timeout_ms: 60000 } },
          undefined,
          { signal: cancel.signal },
        );
        cancel.abort("the agent moved on");
        await expect(waiting).rejects.toThrow();
        await transport.close();
        expect(fs.readFileSync(statusFile, "utf8").trim()).toBe("0");
        // Had the server waited for an answer that never comes, it would have said so when it gave up.
        expect(unanswered()).toBe(before);
      } finally {
        run.kill("SIGKILL");
      }
    },
    TIMEOUT,
  );

  test(
    "initialize and a wait_output, then stdin closed: both answered, once each, then exit 0",
    async () => {
      const run = startRun("eof-wait-raw", ["sh", "-c", "exec sleep 30"]);
      try {
        await untilSessionExists("eof-wait-raw");
        const wait = {
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "derun_wait_output", arguments: { session_id: "eof-wait-raw", cursor: "0", timeout_ms: 60000 } },
        };
        const server = startServer();
        server.stdin.write(`${initialize}${JSON.stringify(wait)}\n`);
        server.stdin.end();
        expect(await server.exited).toBe(0);
        const lines = (await new Response(server.stdout).text())
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line));
        expect(lines.map((line) => line.id)).toEqual([1, 2]);
        expect(lines[1]).toMatchObject({ result: { structuredContent: { chunks: [], next_cursor: "0", eof: false } } });
      } finally {
        run.kill("SIGKILL");
      }
    },
    TIMEOUT,
  );

  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    test(
      `${signal} ends the server with status 0`,
      async () => {
        const server = startServer();
        server.stdin.write(initialize);
        server.stdin.flush();
        const reader = server.stdout.getReader();
        const { value } = await reader.read();
        expect(new TextDecoder().decode(value)).toContain('"serverInfo"');
        server.kill(signal);
        expect(await server.exited).toBe(0);
        expect(server.signalCode).toBeNull();
      },
      TIMEOUT,
    );
  }
});
