/**
 * `derun mcp config <client>` as a user runs it: exit codes and messages, and every JSON shape it
 * prints starts a working `derun mcp` as it stands, with no PATH and another HOME (a GUI client's
 * situation), reaching the session `derun run` recorded under the state root in use. From the source
 * checkout and from the compiled binary; the SDK's own Client speaks to it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { realpathSync } from "node:fs";
import { CLI_ENTRY, derunEnv, tempDir } from "../../helpers/cli.ts";
import { compiledBinary } from "../../helpers/binary.ts";
import { exec, printedConfig } from "../../helpers/exec.ts";

const TIMEOUT = 30_000;
const KNOWN = "known clients: claude-code, claude-desktop, codex, cursor, vscode, gemini";

interface ServerEntry {
  readonly command: string;
  readonly args: string[];
  readonly env: Record<string, string>;
}

/** Where each client's JSON keeps the server. */
const entryOf: Record<string, (json: any) => ServerEntry> = {
  "claude-desktop": (json) => json.mcpServers.derun,
  cursor: (json) => json.mcpServers.derun,
  gemini: (json) => json.mcpServers.derun,
  vscode: (json) => json.servers.derun,
  "claude-code": (json) => json,
};

describe.each([
  { from: "source", derun: async () => [process.execPath, CLI_ENTRY] },
  { from: "compiled binary", derun: async () => [await compiledBinary()] },
])("derun mcp config ($from)", ({ derun: derunOf }) => {
  const state = tempDir("derun-config-state-");
  const work = tempDir("derun-config-work-");
  let derun: string[];
  const config = (args: string[]) => exec([...derun, "mcp", "config", ...args], { env: derunEnv(state.path), cwd: work.path });

  beforeAll(async () => {
    derun = await derunOf();
    const run = await exec([...derun, "run", "--session-id", "seen", "--", "echo", "seen over mcp"], {
      env: derunEnv(state.path),
      cwd: work.path,
    });
    if (run.exitCode !== 0) throw new Error(`derun run failed: ${run.stderr}`);
  }, 120_000);
  afterAll(() => {
    state[Symbol.dispose]();
    work[Symbol.dispose]();
  });

  test(
    "no client, an unknown one, a stray argument, or --json where the client has none: exit 2, one line naming the clients",
    async () => {
      for (const [args, message] of [
        [["zed"], `derun: unknown MCP client "zed" (${KNOWN})`],
        [["cursor", "extra"], `derun: derun mcp config takes one client and its flags (got "extra")`],
        [["cursor", "--yaml"], `derun: unknown option "--yaml"`],
        [["cursor", "--jsn"], `derun: unknown option "--jsn" (did you mean "--json"?)`],
        [["codex", "--json"], "derun: Codex has no JSON configuration: run derun mcp config codex"],
      ] as const) {
        const done = await config([...args]);
        expect({ exitCode: done.exitCode, stdout: done.stdout, first: done.stderr.split("\n")[0] }).toEqual({
          exitCode: 2,
          stdout: "",
          first: message,
        });
      }
    },
    TIMEOUT,
  );

  test(
    "derun mcp config alone lists the clients, one a line, and exits 0",
    async () => {
      const done = await config([]);
      expect(done.exitCode).toBe(0);
      expect(
        done.stdout
          .split("\n")
          .filter(Boolean)
          .map((line) => line.split(/ +/)[0]),
      ).toEqual(KNOWN.replace("known clients: ", "").split(", "));
      expect(done.stdout).toContain("Claude Desktop");
      expect(done.stderr).toBe("derun: derun mcp config <client> prints what that client needs to start derun mcp\n");
    },
    TIMEOUT,
  );

  test(
    "codex: stdout is the TOML table alone (it parses); the codex mcp add line is on stderr",
    async () => {
      const done = await config(["codex"]);
      expect(done.exitCode).toBe(0);
      const server = (Bun.TOML.parse(done.stdout) as { mcp_servers: { derun: ServerEntry } }).mcp_servers.derun;
      // The command may be the PATH's name for the same file (/usr/bin/bun for bun's real path).
      expect({ ...server, command: realpathSync(server.command) }).toEqual({
        command: realpathSync(derun[0]!),
        args: [...derun.slice(1), "mcp"],
        env: { DERUN_STATE_ROOT: state.path },
      });
      expect(done.stderr).toContain(
        "derun: or run (it makes ~/.codex if Codex never ran, and adds or replaces derun there): codex mcp add derun --env",
      );
    },
    TIMEOUT,
  );

  test(
    "gemini: the hint says how to trust the folder, on stderr",
    async () => {
      const done = await config(["gemini"]);
      expect(done.stdout.split("\n").filter(Boolean)).toHaveLength(1);
      expect(done.stderr).toContain("in a folder Gemini CLI does not trust, derun shows as Disabled: trust the folder");
      expect(done.stderr).toContain("/permissions");
    },
    TIMEOUT,
  );

  test(
    "a long unknown name is quoted to 100 characters",
    async () => {
      const done = await config(["x".repeat(5000)]);
      expect(done.exitCode).toBe(2);
      expect(done.stderr.length).toBeLessThan(300);
    },
    TIMEOUT,
  );

  test(
    "each client: exit 0, the configuration on stdout, where it goes and the state root on stderr",
    async () => {
      for (const client of ["claude-code", "claude-desktop", "codex", "cursor", "vscode", "gemini"]) {
        const done = await config([client]);
        expect(done.exitCode).toBe(0);
        expect(done.stdout).toContain(state.path);
        expect(done.stdout).toContain(derun.at(-1)!);
        expect(done.stderr.trimEnd().split("\n")).toHaveLength(client === "codex" || client === "gemini" ? 2 : 1);
        expect(done.stderr).toContain(`derun mcp must read the state root your derun run writes: ${state.path}`);
      }
    },
    TIMEOUT,
  );

  for (const client of Object.keys(entryOf)) {
    test(
      `${client} --json: starts derun mcp with no PATH and another HOME, which reads the recorded session`,
      async () => {
        const entry = entryOf[client]!(JSON.parse(await printedConfig(derun, client, state.path, work.path, true)));
        // What the client adds to its own environment is the entry's env; a GUI app's PATH has no bun.
        const transport = new StdioClientTransport({
          command: entry.command,
          args: entry.args,
          env: { PATH: "/nonexistent", HOME: work.path, ...entry.env },
          cwd: work.path,
          stderr: "pipe",
        });
        const client_ = new Client({ name: `derun-config-${client}`, version: "0" });
        await client_.connect(transport);
        try {
          const answer = await client_.callTool({ name: "derun_read_output", arguments: { session_id: "seen" } });
          const result = answer.structuredContent as { chunks: { data: string }[]; eof: boolean };
          expect(answer.isError).toBeFalsy();
          expect(result.chunks.map((chunk) => chunk.data).join("")).toBe("seen over mcp\n");
          expect(result.eof).toBe(true);
        } finally {
          await client_.close();
        }
      },
      TIMEOUT,
    );
  }
});
