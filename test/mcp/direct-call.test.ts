/**
 * derun_read_output answered without the SDK (src/mcp/direct-call.ts) writes the very line the SDK
 * writes. Over real stdio, for windows of a recorded session with secrets (masked, some cut by a
 * window's edge), multi-byte characters cut by windows, both channels, a colour inside a secret,
 * a PEM key and the ends of the log, in text, base64 and the text view, and for the failures
 * (unknown session, bad cursor, a refused argument): each call is sent plainly (answered directly)
 * and again with a progress token in `_meta` (which the direct way leaves to the SDK), under the
 * same id; the two lines must be the same bytes. A hidden session refuses both ways alike.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { runDerun, tempDir } from "../helpers/cli.ts";
import { SECRETS } from "../helpers/secrets.ts";
import { startRawServer, type RawServer } from "./_raw-server.ts";

const state = tempDir("derun-direct-");
const derun = (...args: string[]) => runDerun(args, { stateRoot: state.path });

/** A log of about 200 KiB: secrets every few lines, multi-byte characters, stderr lines, a coloured token. */
function script(): string {
  const lines: string[] = [];
  for (let i = 0; i < 2400; i++) {
    if (i % 97 === 0) lines.push(`printf 'token=%s and GITHUB ${SECRETS.github}\\n' ${SECRETS.apiKey}`);
    else if (i % 89 === 0) lines.push(`printf 'stderr line %d: é 漢字 😀 ${SECRETS.npm}\\n' ${i} >&2`);
    else if (i % 83 === 0) lines.push(`printf 'coloured ghp_\\033[31m${SECRETS.github.slice(4)}\\033[0m done\\n'`);
    else lines.push(`printf 'line %05d: plain text é ü ñ € ✓ 漢字 😀 \\t tab \\\\ back \\"quote\\"\\n' ${i}`);
  }
  lines.push("printf '%s\\n' '-----BEGIN RSA PRIVATE KEY-----' MIIEowIBAAKCAQEA7bq4k2kZ7mC8wB9 '-----END RSA PRIVATE KEY-----'");
  return lines.join("\n");
}

let server: RawServer;
let nextId = 1;

/** The answer's line to one request (the same id both ways). */
async function line(id: number, params: Record<string, unknown>): Promise<string> {
  const before = server.lines.length;
  server.send(JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params }));
  await server.until((answers) => answers.length > before);
  return server.lines[before]!;
}

/** The line answered directly and the one the SDK answers, for the same call. */
async function bothWays(args: Record<string, unknown>): Promise<[string, string]> {
  const id = nextId++;
  const direct = await line(id, { name: "derun_read_output", arguments: args });
  const sdk = await line(id, { name: "derun_read_output", arguments: args, _meta: { progressToken: `p${id}` } });
  return [direct, sdk];
}

beforeAll(async () => {
  const file = path.join(state.path, "log.sh");
  fs.writeFileSync(file, script());
  expect((await derun("run", "--session-id", "log", "--", "sh", file)).exitCode).toBe(0);
  expect((await derun("run", "--session-id", "gone", "--", "echo", "hidden words")).exitCode).toBe(0);
  expect((await derun("hide", "gone")).exitCode).toBe(0);
  server = startRawServer(state.path);
  server.send(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "direct-test", version: "0" } },
    }),
  );
  server.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  await server.until((answers) => answers.length === 1);
  // The first call loads the handlers (through the SDK); the direct way serves the calls after it.
  await line(nextId++, { name: "derun_list_sessions", arguments: {} });
});
afterAll(async () => {
  await server?.[Symbol.asyncDispose]();
  state[Symbol.dispose]();
});

test("every window of a log with secrets reads the same bytes both ways, in text, base64 and the text view", async () => {
  let windows = 0;
  let masked = 0;
  for (const [mode, maxBytes] of [
    [{ encoding: "text" }, 7919],
    [{ encoding: "base64" }, 65536],
    [{ view: "text" }, 30011],
    [{}, undefined],
  ] as const) {
    for (let cursor = 0; ; ) {
      const [direct, sdk] = await bothWays({
        session_id: "log",
        cursor: String(cursor),
        ...mode,
        ...(maxBytes ? { max_bytes: maxBytes } : {}),
      });
      expect(direct).toBe(sdk);
      const result = JSON.parse(direct).result.structuredContent;
      windows++;
      masked += result.redacted ?? 0;
      if (result.eof) break;
      cursor = Number(result.next_cursor);
    }
  }
  expect(windows).toBeGreaterThan(20);
  expect(masked).toBeGreaterThan(50);
  // No secret left in any answer: masking ran on the direct way.
  expect(server.lines.some((l) => l.includes(SECRETS.github) || l.includes(SECRETS.npm))).toBe(false);
});

test("failures and refusals read the same bytes both ways", async () => {
  for (const args of [
    { session_id: "nope" },
    { session_id: "gone" },
    { session_id: "log", cursor: "-1" },
    { session_id: "log", cursor: "99999999999" },
    { session_id: "log", max_bytes: 0 },
    { session_id: "log", unknown: true },
    { session_id: "log", view: "text", encoding: "base64" },
    { session_id: "last", cursor: "5", max_bytes: 3 },
    {},
  ]) {
    const [direct, sdk] = await bothWays(args);
    expect(direct).toBe(sdk);
  }
  // A hidden session is refused as one never recorded.
  const [hidden] = await bothWays({ session_id: "gone" });
  expect(JSON.parse(hidden).result.isError).toBe(true);
});

test("a call cancelled before its answer is written gets none, either way", async () => {
  for (const meta of [{}, { _meta: { progressToken: "cancelled" } }]) {
    const id = nextId++;
    const call = {
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "derun_read_output", arguments: { session_id: "log" }, ...meta },
    };
    const cancel = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "test" } };
    // One write: the cancel is read before the call's answer can be written.
    server.write(`${JSON.stringify(call)}\n${JSON.stringify(cancel)}\n`);
    const ping = nextId++;
    server.send(JSON.stringify({ jsonrpc: "2.0", id: ping, method: "ping" }));
    await server.until((answers) => answers.some((a) => a.id === ping));
    expect(server.answers.filter((a) => a.id === id)).toEqual([]);
  }
});
