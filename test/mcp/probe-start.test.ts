/**
 * Clients start throwaway `derun mcp` processes to probe it (server/discover, or initialize and the
 * lists): such a process writes nothing under the state root, sweeps nothing and watches nothing.
 * The first request that reads the sessions starts all that.
 */
import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { tempDir } from "../helpers/cli.ts";
import { MODERN_ENVELOPE } from "../helpers/fuzz-messages.ts";
import { startRawServer } from "./_raw-server.ts";

const TIMEOUT = 30_000;

/** Every path under `dir`, relative, sorted. */
const tree = (dir: string): string[] =>
  fs.existsSync(dir) ? (fs.readdirSync(dir, { recursive: true }) as string[]).map((p) => path.join(p)).sort() : [];

/** Send each method as a request (ids 1..n), wait for every answer, close stdin; the exit status. */
async function probe(stateRoot: string, requests: readonly [string, object][]): Promise<number> {
  await using server = startRawServer(stateRoot);
  requests.forEach(([method, params], i) => server.send(JSON.stringify({ jsonrpc: "2.0", id: i + 1, method, params })));
  await server.until((answers) => requests.every((_, i) => answers.some((a) => a.id === i + 1)));
  for (const answer of server.answers) expect(answer.error).toBeUndefined();
  return await server.end();
}

const modern = { _meta: MODERN_ENVELOPE };
const initialize = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "probe", version: "0" } };

describe("a probe process has no side effect", () => {
  test(
    "server/discover (2026-07-28) and initialize with the lists (2025): nothing written, not even the state root",
    async () => {
      using dir = tempDir("derun-mcp-probe-");
      const root = path.join(dir.path, "state");
      expect(await probe(root, [["server/discover", modern]])).toBe(0);
      expect(
        await probe(root, [
          ["initialize", initialize],
          ["ping", {}],
          ["tools/list", {}],
          ["prompts/list", {}],
          ["resources/templates/list", {}],
          ["tools/list", modern],
        ]),
      ).toBe(0);
      expect(fs.existsSync(root)).toBe(false);

      // An existing, empty state root stays empty.
      fs.mkdirSync(root);
      expect(await probe(root, [["server/discover", modern]])).toBe(0);
      expect(tree(root)).toEqual([]);

      // The first request that reads sessions starts the server's work: its log line is the first write.
      expect(await probe(root, [["tools/call", { name: "derun_list_sessions", arguments: {} }]])).toBe(0);
      expect(tree(root)).toContain(path.join("logs", "derun.jsonl"));
      const events = fs
        .readFileSync(path.join(root, "logs", "derun.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line).event);
      expect(events).toEqual(["mcp_start", "mcp_stop"]);
    },
    TIMEOUT,
  );
});
