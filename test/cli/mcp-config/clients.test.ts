/**
 * Each agent CLI that runs here without a login adds derun exactly as `derun mcp config <client>`
 * prints it, and sees it connected: Claude Code (`claude mcp list` health-checks every server),
 * Codex (its app server lists each server's tools), Gemini CLI (`gemini mcp list`), and the MCP
 * Inspector's CLI for the `mcpServers` JSON of Claude Desktop and Cursor. Each from the source
 * checkout and from the compiled binary. The clients get their own HOME and no DERUN_STATE_ROOT, so
 * `derun mcp` finds the recorded session only through the state root the configuration carries.
 * The newest of each (test/helpers/clients.ts), and then each once more through a tap on the pipe to
 * record which request it opens with: `server/discover` (2026-07-28) or `initialize` (2025), with an
 * older Claude Code for the 2025 path.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { queries } from "../../../src/tools/index.ts";
import { CLI_ENTRY, derunEnv, shellQuote, tempDir } from "../../helpers/cli.ts";
import { compiledBinary } from "../../helpers/binary.ts";
import { CLIENT_PACKAGES, clientBin, clientPath, type ClientKey } from "../../helpers/clients.ts";
import { exec, mcpStartsDuring, printedConfig, type Ran } from "../../helpers/exec.ts";
import { firstExchange, mcpTap, type McpTap } from "../../helpers/mcp-tap.ts";

const TIMEOUT = 60_000;
const CLIENTS = ["claude", "claudeLegacy", "codex", "gemini", "inspector"] as const;
type Client = (typeof CLIENTS)[number];
const bins = Object.fromEntries(CLIENTS.map((key) => [key, clientBin(key)])) as Record<Client, ReturnType<typeof clientBin>>;
for (const found of Object.values(bins)) if ("missing" in found) console.log(`skip: ${found.missing}`);
const binOf = (key: Client): string => {
  const found = bins[key];
  if ("missing" in found) throw new Error(found.missing);
  return found.bin;
};
const absent = (key: Client) => "missing" in bins[key];

/**
 * The environment of a client: its own HOME, the client (and its Node 22) first on PATH, nothing of
 * derun's. The Inspector keeps secrets in memory: there is no keychain here, and it says so otherwise.
 */
function clientEnv(home: string, key: ClientKey, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith("DERUN_") && !name.startsWith("XDG_")) env[name] = value;
  }
  return {
    ...env,
    PATH: clientPath(key, env.PATH),
    HOME: home,
    NO_COLOR: "1",
    DISABLE_TELEMETRY: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    MCP_INSPECTOR_SECRET_STORE: "memory",
    ...extra,
  };
}

/** Runs a printed command line as a user pasting it into a shell would. */
const pasteIntoShell = (line: string, env: Record<string, string>, cwd: string): Promise<Ran> => exec(["sh", "-c", line], { env, cwd });

const expectOk = (ran: Ran) =>
  expect({ exitCode: ran.exitCode, stderr: ran.exitCode === 0 ? "" : ran.stderr }).toEqual({ exitCode: 0, stderr: "" });

/** Codex's app server (JSON-RPC over stdio, no login needed) lists each configured MCP server's tools. */
async function codexServerTools(env: Record<string, string>, cwd: string): Promise<string[]> {
  const requests = [
    { method: "initialize", id: 0, params: { clientInfo: { name: "derun-test", title: "derun test", version: "0" } } },
    { method: "initialized" },
    { method: "mcpServerStatus/list", id: 1, params: {} },
  ];
  const proc = Bun.spawn([binOf("codex"), "app-server"], { env, cwd, stdin: "pipe", stdout: "pipe", stderr: "pipe", timeout: 45_000 });
  for (const request of requests) proc.stdin.write(`${JSON.stringify(request)}\n`);
  await proc.stdin.flush();
  let buffered = "";
  try {
    for await (const bytes of proc.stdout) {
      buffered += new TextDecoder().decode(bytes);
      for (const line of buffered.split("\n")) {
        if (!line.startsWith('{"id":1,')) continue;
        const servers = JSON.parse(line).result.data as { name: string; tools: Record<string, unknown> | null }[];
        return Object.keys(servers.find((server) => server.name === "derun")?.tools ?? {}).sort();
      }
    }
    throw new Error(`codex app-server ended without answering: ${await new Response(proc.stderr).text()}`);
  } finally {
    proc.stdin.end();
    proc.kill();
  }
}

/** Every tool derun serves, in the order Codex lists them (by name). */
const DERUN_TOOLS = queries.map((query) => query.name).sort();

/**
 * Each client once per launch and each printed form once: the launches differ only in the command
 * (bun and the entry script, or the binary), the forms only in the client's file or command line.
 */
describe.each([
  {
    from: "source",
    derun: async () => [process.execPath, CLI_ENTRY],
    forms: ["claude line", "codex line", "gemini line", "claude-desktop"],
  },
  { from: "compiled binary", derun: async () => [await compiledBinary()], forms: ["claude json", "codex toml", "gemini json", "cursor"] },
])("MCP clients add the derun that `derun mcp config` prints ($from)", ({ derun: derunOf, forms }) => {
  /** Registers a test only for the forms this launch covers. */
  const form = (name: string, client: Client) => ((forms as readonly string[]).includes(name) ? test.skipIf(absent(client)) : () => {});
  // A space in the state root: the printed command lines must quote it.
  const state = tempDir("derun clients state ");
  const work = tempDir("derun-clients-work-");
  let derun: string[];
  let fresh = 0;
  /** A new HOME and project directory for one client run. */
  const freshHome = () => {
    const home = join(work.path, `home-${++fresh}`);
    const project = join(home, "project");
    mkdirSync(project, { recursive: true });
    return { home, project };
  };

  beforeAll(async () => {
    derun = await derunOf();
    const run = await exec([...derun, "run", "--session-id", "seen", "--", "echo", "seen over mcp"], {
      env: { ...clientEnv(work.path, "claude"), DERUN_STATE_ROOT: state.path },
      cwd: work.path,
    });
    if (run.exitCode !== 0) throw new Error(`derun run failed: ${run.stderr}`);
  }, 120_000);
  afterAll(() => {
    state[Symbol.dispose]();
    work[Symbol.dispose]();
  });

  form("claude line", "claude")(
    "Claude Code: the printed `claude mcp add` line, then `claude mcp list` shows derun connected (and a broken server failed)",
    async () => {
      const { home, project } = freshHome();
      const env = clientEnv(home, "claude");
      const line = (await printedConfig(derun, "claude-code", state.path, project)).trim();
      expectOk(await pasteIntoShell(line, env, project));
      // The control: a server that cannot start must show as failed, so "Connected" means a real check.
      expectOk(
        await exec([binOf("claude"), "mcp", "add", "--scope", "user", "broken", "--", join(work.path, "no-such-derun"), "mcp"], {
          env,
          cwd: project,
        }),
      );
      const { value: list, starts } = await mcpStartsDuring(state.path, () =>
        exec([binOf("claude"), "mcp", "list"], { env, cwd: project }),
      );
      expect(list.stdout).toMatch(/^derun: .* - ✔ Connected$/m);
      // 2.1.332 adds the reason after a dash ("— ENOENT: no such file or directory, posix_spawn ...").
      expect(list.stdout).toMatch(/^broken: .* - ✘ Failed to connect( — .*)?$/m);
      expect(starts).toBeGreaterThan(0);
    },
    TIMEOUT,
  );

  form("claude json", "claude")(
    "Claude Code: the --json shape through `claude mcp add-json`",
    async () => {
      const { home, project } = freshHome();
      const env = clientEnv(home, "claude");
      const json = await printedConfig(derun, "claude-code", state.path, project, true);
      expectOk(await exec([binOf("claude"), "mcp", "add-json", "--scope", "user", "derun", json], { env, cwd: project }));
      const list = await exec([binOf("claude"), "mcp", "list"], { env, cwd: project });
      expect(list.stdout).toMatch(/^derun: .* - ✔ Connected$/m);
    },
    TIMEOUT,
  );

  form("codex line", "codex")(
    "Codex: the printed `codex mcp add` line, then its app server lists derun's tools",
    async () => {
      const { home, project } = freshHome();
      const env = clientEnv(home, "codex", { CODEX_HOME: join(home, ".codex") });
      mkdirSync(env.CODEX_HOME!, { recursive: true });
      const hint = (await exec([...derun, "mcp", "config", "codex"], { env: derunEnv(state.path), cwd: project })).stderr;
      const line = /derun there\): (codex mcp add .*)$/m.exec(hint)![1]!;
      expectOk(await pasteIntoShell(line, env, project));
      const { value: tools, starts } = await mcpStartsDuring(state.path, () => codexServerTools(env, project));
      expect(tools).toEqual(DERUN_TOOLS);
      expect(starts).toBeGreaterThan(0);
    },
    TIMEOUT,
  );

  form("codex toml", "codex")(
    "Codex: the printed [mcp_servers.derun] table as ~/.codex/config.toml",
    async () => {
      const { home, project } = freshHome();
      const env = clientEnv(home, "codex", { CODEX_HOME: join(home, ".codex") });
      const toml = await printedConfig(derun, "codex", state.path, project);
      mkdirSync(env.CODEX_HOME!, { recursive: true });
      writeFileSync(join(env.CODEX_HOME!, "config.toml"), toml);
      const got = await exec([binOf("codex"), "mcp", "get", "derun", "--json"], { env, cwd: project });
      expectOk(got);
      const transport = JSON.parse(got.stdout).transport;
      // The printed command may be the PATH's name for the same file (/usr/bin/bun for bun's real path).
      expect({ type: transport.type, command: realpathSync(transport.command), args: transport.args, env: transport.env }).toEqual({
        type: "stdio",
        command: realpathSync(derun[0]!),
        args: [...derun.slice(1), "mcp"],
        env: { DERUN_STATE_ROOT: state.path },
      });
      expect(await codexServerTools(env, project)).toEqual(DERUN_TOOLS);
    },
    TIMEOUT,
  );

  /** Gemini CLI connects only in a folder the user trusts (its trustedFolders.json). */
  const trust = (home: string, project: string) => {
    mkdirSync(join(home, ".gemini"), { recursive: true });
    writeFileSync(join(home, ".gemini", "trustedFolders.json"), JSON.stringify({ [project]: "TRUST_FOLDER" }));
  };

  form("gemini line", "gemini")(
    "Gemini CLI: the printed `gemini mcp add` line, then `gemini mcp list` shows derun connected",
    async () => {
      const { home, project } = freshHome();
      const env = clientEnv(home, "gemini");
      trust(home, project);
      const line = (await printedConfig(derun, "gemini", state.path, project)).trim();
      expectOk(await pasteIntoShell(line, env, project));
      const { value: list, starts } = await mcpStartsDuring(state.path, () =>
        exec([binOf("gemini"), "mcp", "list"], { env, cwd: project }),
      );
      expect(list.stdout + list.stderr).toMatch(/^✓ derun: .* - Connected$/m);
      expect(starts).toBeGreaterThan(0);
    },
    TIMEOUT,
  );

  form("gemini json", "gemini")(
    "Gemini CLI: the --json shape as ~/.gemini/settings.json",
    async () => {
      const { home, project } = freshHome();
      const env = clientEnv(home, "gemini");
      trust(home, project);
      writeFileSync(join(home, ".gemini", "settings.json"), await printedConfig(derun, "gemini", state.path, project, true));
      const list = await exec([binOf("gemini"), "mcp", "list"], { env, cwd: project });
      expect(list.stdout + list.stderr).toMatch(/^✓ derun: .* - Connected$/m);
    },
    TIMEOUT,
  );

  for (const client of ["claude-desktop", "cursor"]) {
    form(client, "inspector")(
      `MCP Inspector CLI: the ${client} mcpServers file, tools/call reads the recorded session`,
      async () => {
        const { home, project } = freshHome();
        const file = join(project, `${client}.json`);
        writeFileSync(file, await printedConfig(derun, client, state.path, project));
        const argv = [binOf("inspector"), "--cli", "--config", file, "--server", "derun", "--method", "tools/call"];
        const call = await exec([...argv, "--tool-name", "derun_read_output", "--tool-arg", "session_id=seen"], {
          env: clientEnv(home, "inspector"),
          cwd: project,
        });
        expectOk(call);
        const result = JSON.parse(call.stdout).structuredContent;
        expect(result.chunks.map((chunk: { data: string }) => chunk.data).join("")).toBe("seen over mcp\n");
        expect(result.eof).toBe(true);
      },
      TIMEOUT,
    );
  }
});

/**
 * Which method each client sends first, and that derun answers it (no -32601, no fallback): each
 * client starts derun (from source) through a tap that copies both pipes into files
 * (test/helpers/mcp-tap.ts), configured in the client's own way, then does what the tests above do.
 * docs/agents.md lists the same.
 */
describe("the first request each client sends derun, and derun's answer", () => {
  const state = tempDir("derun-first-method-state-");
  const work = tempDir("derun-first-method-work-");
  let fresh = 0;
  /** A new HOME, project and tap for one client run. */
  const setUp = () => {
    const home = join(work.path, `home-${++fresh}`);
    const project = join(home, "project");
    const tapDir = join(home, "tap");
    for (const dir of [project, tapDir]) mkdirSync(dir, { recursive: true });
    const tap = mcpTap(tapDir);
    return { home, project, tap, entry: tap.entry([process.execPath, CLI_ENTRY], state.path) };
  };

  beforeAll(async () => {
    const run = await exec([process.execPath, CLI_ENTRY, "run", "--session-id", "seen", "--", "echo", "seen over mcp"], {
      env: derunEnv(state.path),
      cwd: work.path,
    });
    if (run.exitCode !== 0) throw new Error(`derun run failed: ${run.stderr}`);
  }, TIMEOUT);
  afterAll(() => {
    state[Symbol.dispose]();
    work[Symbol.dispose]();
  });

  /** The first connection's first request was `method`, answered with a result. */
  const expectFirst = (tap: McpTap, method: string) => {
    const [first] = tap.connections();
    expect(first && firstExchange(first)?.method).toBe(method);
    const answer = firstExchange(first!)?.answer;
    expect({ answered: answer !== undefined, error: answer?.error }).toEqual({ answered: true, error: undefined });
  };

  const claude = (key: "claude" | "claudeLegacy", method: string) =>
    test.skipIf(absent(key))(
      `Claude Code ${CLIENT_PACKAGES[key].version}: \`claude mcp list\` shows derun connected, opening with ${method}`,
      async () => {
        const { home, project, tap, entry } = setUp();
        const env = clientEnv(home, key);
        const json = JSON.stringify({ type: "stdio", ...entry });
        expectOk(await exec([binOf(key), "mcp", "add-json", "--scope", "user", "derun", json], { env, cwd: project }));
        const list = await exec([binOf(key), "mcp", "list"], { env, cwd: project });
        expect(list.stdout).toMatch(/^derun: .* - ✔ Connected$/m);
        expectFirst(tap, method);
      },
      TIMEOUT,
    );
  claude("claude", "server/discover");
  claude("claudeLegacy", "initialize");

  test.skipIf(absent("codex"))(
    `Codex ${CLIENT_PACKAGES.codex.version}: its app server lists derun's tools, opening with initialize`,
    async () => {
      const { home, project, tap, entry } = setUp();
      const env = clientEnv(home, "codex", { CODEX_HOME: join(home, ".codex") });
      mkdirSync(env.CODEX_HOME!, { recursive: true });
      const toml = [
        "[mcp_servers.derun]",
        `command = ${JSON.stringify(entry.command)}`,
        `args = ${JSON.stringify(entry.args)}`,
        "[mcp_servers.derun.env]",
        `DERUN_STATE_ROOT = ${JSON.stringify(state.path)}`,
      ];
      writeFileSync(join(env.CODEX_HOME!, "config.toml"), `${toml.join("\n")}\n`);
      expect(await codexServerTools(env, project)).toEqual(DERUN_TOOLS);
      expectFirst(tap, "initialize");
    },
    TIMEOUT,
  );

  test.skipIf(absent("gemini"))(
    `Gemini CLI ${CLIENT_PACKAGES.gemini.version}: \`gemini mcp list\` shows derun connected, opening with initialize`,
    async () => {
      const { home, project, tap, entry } = setUp();
      const env = clientEnv(home, "gemini");
      mkdirSync(join(home, ".gemini"), { recursive: true });
      writeFileSync(join(home, ".gemini", "trustedFolders.json"), JSON.stringify({ [project]: "TRUST_FOLDER" }));
      writeFileSync(join(home, ".gemini", "settings.json"), JSON.stringify({ mcpServers: { derun: entry } }));
      const list = await exec([binOf("gemini"), "mcp", "list"], { env, cwd: project });
      expect(list.stdout + list.stderr).toMatch(/^✓ derun: .* - Connected$/m);
      expectFirst(tap, "initialize");
    },
    TIMEOUT,
  );

  for (const era of ["modern", "auto"] as const) {
    test.skipIf(absent("inspector"))(
      `Inspector ${CLIENT_PACKAGES.inspector.version} --protocol-era ${era}: tools/call reads the session, opening with server/discover`,
      async () => {
        const { home, project, tap, entry } = setUp();
        const file = join(project, "servers.json");
        writeFileSync(file, JSON.stringify({ mcpServers: { derun: entry } }));
        const argv = [binOf("inspector"), "--cli", "--config", file, "--server", "derun", "--protocol-era", era];
        const call = await exec([...argv, "--method", "tools/call", "--tool-name", "derun_read_output", "--tool-arg", "session_id=seen"], {
          env: clientEnv(home, "inspector"),
          cwd: project,
        });
        expectOk(call);
        const result = JSON.parse(call.stdout).structuredContent;
        expect(result.chunks.map((chunk: { data: string }) => chunk.data).join("")).toBe("seen over mcp\n");
        expectFirst(tap, "server/discover");
        // One derun start: the Inspector asks server/discover of the process it keeps (the SDK v2
        // client in auto mode starts a throwaway one to ask it; test/mcp/protocol-eras.test.ts).
        expect(tap.connections()).toHaveLength(1);
      },
      TIMEOUT,
    );
  }
});

/** Keeps the quoting helper honest for the shell lines above: a quoted word survives `sh -c`. */
test("a printed path with a space and a quote survives the shell as one word", async () => {
  const word = "/tmp/it's a dir/derun";
  const echoed = await exec(["sh", "-c", `printf '%s\\n' ${shellQuote(word)}`], { env: { PATH: process.env.PATH ?? "" }, cwd: "/" });
  expect(echoed.stdout).toBe(`${word}\n`);
});
