/**
 * The printers of `derun mcp config`, as pure functions: which command a launch becomes, and each
 * client's output checked against the format its documentation gives (cited per schema below).
 * That the clients accept them is clients.test.ts; that they start derun is command.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { type } from "arktype";
import pkg from "../../../package.json" with { type: "json" };
import { fromNpxRegistry } from "../../../src/cli/mcp-config/launch.ts";
import { launchOf, mcpClientNames, mcpClients, type Invocation, type McpLaunch } from "../../../src/cli/mcp-config/index.ts";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { remoteLaunch } from "../../../src/cli/mcp-config/remote.ts";
import { tempDir } from "../../helpers/cli.ts";
import { exec } from "../../helpers/exec.ts";

const posix = (over: Partial<Invocation> = {}): Invocation => ({
  execPath: "/usr/lib/node_modules/bun/bin/bun.exe",
  main: "/home/me/derun/src/cli/index.ts",
  platform: "linux",
  env: { HOME: "/home/me" },
  ...over,
});

describe("the command a client starts", () => {
  test("from a checkout or an installed package: the runtime and the absolute entry script", () => {
    expect(launchOf(posix())).toEqual({
      command: "/usr/lib/node_modules/bun/bin/bun.exe",
      args: ["/home/me/derun/src/cli/index.ts", "mcp"],
      stateRoot: "/home/me/.local/state/derun",
      platform: "linux",
    });
  });

  test("the runtime under its name on PATH when that is the same file", () => {
    expect(launchOf(posix({ execAlias: "/usr/bin/bun" })).command).toBe("/usr/bin/bun");
  });

  test("the compiled binary: itself, on POSIX and on Windows", () => {
    expect(launchOf(posix({ execPath: "/opt/derun/derun", main: "/$bunfs/root/derun" }))).toMatchObject({
      command: "/opt/derun/derun",
      args: ["mcp"],
    });
    const windows = launchOf({
      execPath: "C:\\Tools\\derun-0.1.0-windows-x64.exe",
      main: "B:\\~BUN\\root\\derun-0.1.0-windows-x64.exe",
      platform: "win32",
      env: { LOCALAPPDATA: "C:\\Users\\me\\AppData\\Local" },
    });
    expect(windows).toEqual({
      command: "C:\\Tools\\derun-0.1.0-windows-x64.exe",
      args: ["mcp"],
      stateRoot: "C:\\Users\\me\\AppData\\Local\\derun\\state",
      platform: "win32",
    });
  });

  test("bunx of the registry package (Bun 1.4's cache and older Bun's temp directory): bun x derun@<this version>", () => {
    const pinned = ["x", `derun@${pkg.version}`, "mcp"];
    expect(
      launchOf(posix({ main: "/home/me/.bun/install/cache/.bunx-1000/derun@latest/node_modules/derun/src/cli/index.ts" })).args,
    ).toEqual(pinned);
    expect(launchOf(posix({ main: "/tmp/bunx-1000-derun@0.1.0/node_modules/derun/src/cli/index.ts" })).args).toEqual(pinned);
  });

  test("the binary npm's launcher started from bunx's cache: bun x derun@<this version>, where bun is on PATH", () => {
    const execPath = "/home/me/.bun/install/cache/.bunx-1000/derun@latest/node_modules/derun-linux-x64/bin/derun";
    const main = "/$bunfs/root/derun";
    expect(launchOf(posix({ execPath, main, bunOnPath: "/home/me/.bun/bin/bun" }))).toMatchObject({
      command: "/home/me/.bun/bin/bun",
      args: ["x", `derun@${pkg.version}`, "mcp"],
    });
    expect(launchOf(posix({ execPath, main }))).toMatchObject({ command: execPath, args: ["mcp"] });
    const global = "/usr/lib/node_modules/derun-linux-x64/bin/derun";
    expect(launchOf(posix({ execPath: global, main, bunOnPath: "/usr/bin/bun" }))).toMatchObject({ command: global, args: ["mcp"] });
  });

  test("the binary npx installed from the registry: npx --yes derun@<this version>; from a tarball: the binary", () => {
    using cache = tempDir("derun-npx-cache-");
    const install = (spec: string) => {
      const dir = join(cache.path, "_npx", Buffer.from(spec).toString("hex").slice(0, 16));
      mkdirSync(join(dir, "node_modules", "derun-linux-x64", "bin"), { recursive: true });
      writeFileSync(join(dir, "package.json"), JSON.stringify({ dependencies: { derun: spec } }));
      return join(dir, "node_modules", "derun-linux-x64", "bin", "derun");
    };
    for (const spec of ["^0.1.0", "0.1.0", "latest"])
      expect({ spec, registry: fromNpxRegistry(install(spec)) }).toEqual({ spec, registry: true });
    for (const spec of ["file:../../../../tmp/derun-0.1.0.tgz", "/tmp/derun-0.1.0.tgz", "github:me/derun", "https://x.test/derun.tgz"])
      expect({ spec, registry: fromNpxRegistry(install(spec)) }).toEqual({ spec, registry: false });
    expect(fromNpxRegistry("/usr/lib/node_modules/derun-linux-x64/bin/derun")).toBe(false);
    const execPath = install("^0.1.0");
    expect(launchOf(posix({ execPath, main: "/$bunfs/root/derun", npxOnPath: "/usr/bin/npx" }))).toMatchObject({
      command: "/usr/bin/npx",
      args: ["--yes", `derun@${pkg.version}`, "mcp"],
    });
  });

  test("bunx of a tarball is not the registry package: its entry script", () => {
    const main = "/home/me/.bun/install/cache/.bunx-1000/@/tmp/derun-0.1.0.tgz/node_modules/derun/src/cli/index.ts";
    expect(launchOf(posix({ main })).args).toEqual([main, "mcp"]);
  });

  test("the state root in use: DERUN_STATE_ROOT, else XDG_STATE_HOME/derun", () => {
    expect(launchOf(posix({ env: { HOME: "/home/me", DERUN_STATE_ROOT: "/srv/derun" } })).stateRoot).toBe("/srv/derun");
    expect(launchOf(posix({ env: { HOME: "/home/me", XDG_STATE_HOME: "/home/me/st" } })).stateRoot).toBe("/home/me/st/derun");
  });
});

const launch: McpLaunch = {
  command: "/home/me/.local/bin/derun",
  args: ["mcp"],
  stateRoot: "/home/me/it's state/derun",
  platform: "linux",
};
const env = { DERUN_STATE_ROOT: launch.stateRoot };
const absolute = type("string").narrow((path, ctx) => path.startsWith("/") || ctx.mustBe("an absolute path"));

/**
 * A stdio server entry of an `mcpServers` map, no other keys. Claude Desktop:
 * https://modelcontextprotocol.io/quickstart/user; Cursor: https://docs.cursor.com/context/model-context-protocol;
 * Gemini CLI: https://github.com/google-gemini/gemini-cli/blob/main/docs/tools/mcp-server.md.
 */
const mcpServersFile = type({
  "+": "reject",
  mcpServers: { "+": "reject", derun: { "+": "reject", command: absolute, args: "string[]", env: "Record<string, string>" } },
});
/** https://code.visualstudio.com/docs/copilot/reference/mcp-configuration: `servers`, stdio entries with `type`. */
const vscodeFile = type({
  "+": "reject",
  servers: { "+": "reject", derun: { "+": "reject", type: "'stdio'", command: absolute, args: "string[]", env: "Record<string, string>" } },
});
/** What `claude mcp add-json <name> <json>` takes: https://docs.anthropic.com/en/docs/claude-code/mcp. */
const claudeCodeJson = type({ "+": "reject", type: "'stdio'", command: absolute, args: "string[]", env: "Record<string, string>" });

describe("each client's output has the client's documented shape", () => {
  for (const [name, schema] of [
    ["claude-desktop", mcpServersFile],
    ["cursor", mcpServersFile],
    ["gemini", mcpServersFile],
    ["vscode", vscodeFile],
    ["claude-code", claudeCodeJson],
  ] as const) {
    test(`${name} --json`, () => {
      const printed = JSON.parse(JSON.stringify(mcpClients[name].json!(launch)));
      const checked = schema(printed);
      if (checked instanceof type.errors) throw new Error(checked.summary);
      const entry = "type" in printed && !("servers" in printed) ? printed : (printed.mcpServers ?? printed.servers).derun;
      expect({ command: entry.command, args: entry.args, env: entry.env }).toEqual({ command: launch.command, args: ["mcp"], env });
    });
  }

  test("the JSON-only clients print the same JSON without --json", () => {
    for (const name of ["claude-desktop", "cursor", "vscode"] as const) {
      expect(JSON.parse(mcpClients[name].text(launch))).toEqual(mcpClients[name].json!(launch));
    }
  });

  test(
    "codex: what it prints is TOML alone, and parses to command, args and env " +
      "(https://github.com/openai/codex/blob/main/docs/config.md)",
    () => {
      const toml = Bun.TOML.parse(mcpClients.codex.text(launch)) as Record<string, unknown>;
      expect(toml).toEqual({ mcp_servers: { derun: { command: launch.command, args: ["mcp"], env } } });
      expect(mcpClients.codex.json).toBeUndefined();
    },
  );

  test("no snippet turns redaction off: --no-redact is for a person to type, never in a client's config", () => {
    const launches = [launchOf(posix()), launchOf(posix({ execPath: "/home/me/.local/bin/derun", main: "/$bunfs/root/derun" }))];
    for (const l of launches)
      for (const name of mcpClientNames)
        expect({ name, text: mcpClients[name].text(l) }).toEqual({ name, text: expect.not.stringMatching(/redact/) });
  });

  test("every client has a title and says where its configuration goes", () => {
    expect(mcpClientNames).toEqual(["claude-code", "claude-desktop", "codex", "cursor", "vscode", "gemini"]);
    for (const name of mcpClientNames) expect(mcpClients[name].where.length).toBeGreaterThan(10);
  });
});

/** The words a POSIX shell makes of a printed line, the program's name replaced by a word printer. */
async function shellWords(line: string): Promise<string[]> {
  const [program, ...rest] = line.split(" ");
  const script = `words() { printf '%s\\0' "$@"; }; words ${line.slice(program!.length + 1)}`;
  const done = await exec(["sh", "-c", script], { env: { PATH: process.env.PATH ?? "" }, cwd: "/" });
  expect(rest.length).toBeGreaterThan(0);
  return done.stdout.split("\0").slice(0, -1);
}

describe("the command lines survive a shell word for word", () => {
  const setEnv = `DERUN_STATE_ROOT=${launch.stateRoot}`;
  test("claude mcp remove, then add: the name before -e (which takes several values), the server after --", async () => {
    const [remove, add] = mcpClients["claude-code"].text(launch).split(" 2>/dev/null; ");
    expect(await shellWords(remove!)).toEqual(["mcp", "remove", "--scope", "user", "derun"]);
    expect(await shellWords(add!)).toEqual(["mcp", "add", "--scope", "user", "derun", "-e", setEnv, "--", launch.command, "mcp"]);
  });
  test("codex mcp add", async () => {
    const line = mcpClients.codex.hint!(launch).replace(/^.*?: (?=codex )/, "");
    expect(await shellWords(line)).toEqual(["mcp", "add", "derun", "--env", setEnv, "--", launch.command, "mcp"]);
  });
  test("gemini mcp add", async () => {
    expect(await shellWords(mcpClients.gemini.text(launch))).toEqual([
      "mcp",
      "add",
      "--scope",
      "user",
      "-e",
      setEnv,
      "derun",
      launch.command,
      "mcp",
    ]);
  });
  test("on Windows, paths with spaces in double quotes", () => {
    const windows: McpLaunch = {
      command: "C:\\Program Files\\derun\\derun.exe",
      args: ["mcp"],
      stateRoot: "C:\\Users\\me\\AppData\\Local\\derun\\state",
      platform: "win32",
    };
    expect(mcpClients["claude-code"].text(windows)).toBe(
      "claude mcp remove --scope user derun 2>$null; " +
        'claude mcp add --scope user derun -e "DERUN_STATE_ROOT=C:\\Users\\me\\AppData\\Local\\derun\\state" -- "C:\\Program ' +
        'Files\\derun\\derun.exe" mcp',
    );
  });
});

describe("a derun on another machine (--ssh, --container)", () => {
  const env = { PATH: "/usr/bin:/bin" };
  const viaSsh = remoteLaunch(
    { kind: "ssh", destination: "me@build-box" },
    { derun: "~/.local/bin/derun", stateRoot: "/srv/derun state", env, platform: "linux" },
  );
  test("ssh: -T, no password prompt, and one remote command line quoted for the remote shell (~/ left to expand there)", () => {
    expect(viaSsh.args).toEqual(["-T", "-o", "BatchMode=yes", "me@build-box", "~/.local/bin/derun mcp --state-root '/srv/derun state'"]);
    expect(viaSsh.stateRoot).toBeUndefined();
  });
  test("no client hands it a local DERUN_STATE_ROOT: it reads that machine's", () => {
    for (const name of mcpClientNames) {
      expect(mcpClients[name].text(viaSsh)).not.toContain("DERUN_STATE_ROOT");
      if (mcpClients[name].json) expect(JSON.stringify(mcpClients[name].json!(viaSsh))).not.toContain('"env"');
    }
    expect(Bun.TOML.parse(mcpClients.codex.text(viaSsh))).toEqual({
      mcp_servers: { derun: { command: viaSsh.command, args: viaSsh.args } },
    });
  });
  test("container: exec -i <name> derun mcp, words as they are (no shell)", () => {
    using engines = tempDir("derun-engine-");
    writeFileSync(join(engines.path, "podman"), "#!/bin/sh\n", { mode: 0o755 });
    const inBox = remoteLaunch(
      { kind: "container", name: "box", engine: "podman" },
      { derun: "derun", env: { PATH: engines.path }, platform: "linux" },
    );
    expect(inBox).toEqual({ command: join(engines.path, "podman"), args: ["exec", "-i", "box", "derun", "mcp"], platform: "linux" });
    expect(() =>
      remoteLaunch(
        { kind: "container", name: "box", engine: "docker" },
        { derun: "derun", env: { PATH: engines.path }, platform: "linux" },
      ),
    ).toThrow("docker is not on PATH");
  });
});
