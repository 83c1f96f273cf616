/**
 * Both protocol eras from one `derun mcp`: the MCP SDK's v2 client (@modelcontextprotocol/client
 * 2.4.0) over real stdio, in each of its negotiation modes, against a session a real `derun run`
 * recorded. `pin` 2026-07-28 needs `server/discover` answered and every request served from its
 * `_meta`; `auto` probes with `server/discover` and settles on the modern era; `legacy` is the
 * `initialize` handshake of 2025-11-25.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client, type VersionNegotiationMode } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { derunArgv, derunEnv, REPO_ROOT, runDerun, tempDir } from "../helpers/cli.ts";
import { MODERN_ENVELOPE } from "../helpers/fuzz-messages.ts";
import { startRawServer } from "./_raw-server.ts";

const root = tempDir("derun-mcp-eras-");
const TIMEOUT = 30_000;

beforeAll(async () => {
  const run = await runDerun(["run", "--session-id", "eras", "--", "sh", "-c", "echo hello from both eras"], {
    stateRoot: root.path,
  });
  expect(run.exitCode).toBe(0);
}, TIMEOUT);
afterAll(() => root[Symbol.dispose]());

const meta = (version: string) => ({ _meta: { ...MODERN_ENVELOPE, "io.modelcontextprotocol/protocolVersion": version } });

const connect = async (mode: VersionNegotiationMode): Promise<Client & AsyncDisposable> => {
  const client = new Client({ name: "derun-eras", version: "0" }, { versionNegotiation: { mode } });
  const [command = process.execPath, ...args] = derunArgv();
  await client.connect(
    new StdioClientTransport({ command, args: [...args, "mcp"], env: derunEnv(root.path), cwd: REPO_ROOT, stderr: "pipe" }),
  );
  return Object.assign(client, { [Symbol.asyncDispose]: () => client.close() });
};

const cases: [string, VersionNegotiationMode, string][] = [
  ["pin 2026-07-28", { pin: "2026-07-28" }, "2026-07-28"],
  ["auto", "auto", "2026-07-28"],
  ["legacy", "legacy", "2025-11-25"],
];

describe("derun mcp speaks both protocol eras", () => {
  for (const [name, mode, version] of cases) {
    test(
      `SDK v2 client, ${name}: connects at ${version}, lists and calls tools, reads a resource`,
      async () => {
        await using client = await connect(mode);
        expect(client.getNegotiatedProtocolVersion()).toBe(version);
        expect(client.getServerCapabilities()?.tools).toBeDefined();

        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name)).toContain("derun_read_text");

        const listed = await client.callTool({ name: "derun_list_sessions", arguments: {} });
        expect(listed.isError).toBeFalsy();
        expect((listed.structuredContent as { sessions: { session_id: string }[] }).sessions[0]!.session_id).toBe("eras");

        const read = await client.callTool({ name: "derun_read_text", arguments: { session_id: "eras" } });
        expect((read.content as { text: string }[])[0]!.text).toContain("hello from both eras");

        const resource = await client.readResource({ uri: "derun://session/eras" });
        expect(JSON.stringify(resource.contents)).toContain("hello from both eras");

        const completion = await client.complete({
          ref: { type: "ref/resource", uri: "derun://session/{id}" },
          argument: { name: "id", value: "er" },
        });
        expect(completion.completion.values).toEqual(["eras"]);

        // A bad argument is still a tool result, not a protocol error, in either era.
        const bad = await client.callTool({ name: "derun_read_text", arguments: { session_id: 7 } });
        expect(bad.isError).toBe(true);
      },
      TIMEOUT,
    );
  }

  test(
    "raw lines: server/discover, a version not spoken (-32022), an envelope without capabilities, then initialize 2025-06-18",
    async () => {
      await using server = startRawServer(root.path);
      const send = (id: number, method: string, params: object) => server.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
      // A probe first, then the 2025-era handshake, from one process (a client falling back).
      send(1, "server/discover", meta("2026-07-28"));
      send(2, "tools/list", meta("2027-01-01"));
      send(3, "tools/list", { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } });
      send(4, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } });
      send(5, "tools/list", {});
      await server.until((answers) => [1, 2, 3, 4, 5].every((id) => answers.some((a) => a.id === id)));
      const byId = (id: number) => server.answers.find((a) => a.id === id)!;
      expect(byId(1).result.supportedVersions).toEqual(["2026-07-28"]);
      expect(byId(1).result.capabilities.tools).toBeDefined();
      expect(byId(1).result.resultType).toBe("complete");
      expect(byId(1).result.capabilities.tasks).toBeUndefined();
      expect(byId(2).error.code).toBe(-32022);
      expect(byId(2).error.data).toEqual({ supported: ["2026-07-28"], requested: "2027-01-01" });
      expect(byId(3).error.code).toBe(-32602);
      expect(byId(4).result.protocolVersion).toBe("2025-06-18");
      expect(byId(4).result.capabilities.tasks).toBeDefined();
      // A 2025-era answer: no fields of the 2026 wire; tasks are 2025-era fields.
      expect(byId(5).result.tools.length).toBeGreaterThan(0);
      expect(byId(5).result.ttlMs).toBeUndefined();
      expect(byId(5).result.tools.filter((t: any) => t.execution).length).toBe(2);
      expect(server.answers.length).toBe(5);
      expect(await server.end()).toBe(0);
    },
    TIMEOUT,
  );

  test(
    "raw lines: a 2026-07-28 request opens the modern era (no tasks, the 2026 wire); initialize on it is refused",
    async () => {
      await using server = startRawServer(root.path);
      const send = (id: number, method: string, params: object) => server.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
      send(1, "tools/list", meta("2026-07-28"));
      send(2, "initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "0" } });
      send(3, "tools/list", meta("2026-07-28"));
      await server.until((answers) => [1, 2, 3].every((id) => answers.some((a) => a.id === id)));
      const byId = (id: number) => server.answers.find((a) => a.id === id)!;
      expect(byId(1).result).toMatchObject({ resultType: "complete", ttlMs: 0, cacheScope: "private" });
      expect(byId(1).result._meta["io.modelcontextprotocol/serverInfo"].name).toBe("derun");
      // Tasks are an extension of their own in 2026-07-28, not served.
      expect(byId(1).result.tools.filter((t: any) => t.execution).length).toBe(0);
      expect(byId(2).error.code).toBe(-32022);
      expect(byId(3).result.tools.length).toBe(byId(1).result.tools.length);
      expect(server.answers.length).toBe(3);
      expect(await server.end()).toBe(0);
    },
    TIMEOUT,
  );
});
