/**
 * Every line `derun mcp config` prints works when pasted on a machine where the client never ran,
 * and pasted again where derun and another server are configured already (issue 43): Claude Code's
 * line (a second `claude mcp add` alone fails "already exists"), Codex's `codex mcp add` line (no
 * ~/.codex yet; appending the table there failed), Gemini CLI's line, and `--merge <file>` for the
 * clients configured by a JSON file (`> ~/.cursor/mcp.json` replaced every other server). The real
 * clients, each with a fresh HOME.
 */
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { CLI_ENTRY, derunEnv, tempDir } from "../../helpers/cli.ts";
import { clientBin, type ClientKey } from "../../helpers/clients.ts";
import { exec, type Ran } from "../../helpers/exec.ts";

const TIMEOUT = 120_000;
const DERUN = [process.execPath, CLI_ENTRY];
const state = tempDir("derun-paste-state-");
const work = tempDir("derun-paste-work-");
afterAll(() => {
  state[Symbol.dispose]();
  work[Symbol.dispose]();
});

let homes = 0;
/** A HOME where no client ever ran, and the environment of a shell there with `key`'s CLI on PATH. */
function freshHome(key?: ClientKey): { home: string; env: Record<string, string> } {
  const home = join(work.path, `home-${++homes}`);
  mkdirSync(home, { recursive: true });
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env))
    if (value !== undefined && !name.startsWith("DERUN_") && !name.startsWith("XDG_") && name !== "CODEX_HOME") env[name] = value;
  const bin = key === undefined ? undefined : clientBin(key);
  const path = bin && "bin" in bin ? `${dirname(bin.bin)}${delimiter}${env.PATH ?? ""}` : (env.PATH ?? "");
  return {
    home,
    env: { ...env, PATH: path, HOME: home, NO_COLOR: "1", DISABLE_TELEMETRY: "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" },
  };
}

/** `derun mcp config <args>`, as a person at that HOME runs it. */
const config = (home: string, ...args: string[]): Promise<Ran> =>
  exec([...DERUN, "mcp", "config", ...args], { env: derunEnv(state.path, { HOME: home }), cwd: home });
const paste = (line: string, env: Record<string, string>, cwd: string) => exec(["sh", "-c", line], { env, cwd });
const ok = (ran: Ran) => expect({ exitCode: ran.exitCode, stderr: ran.exitCode === 0 ? "" : ran.stderr }).toMatchObject({ exitCode: 0 });
const absent = (key: ClientKey) => "missing" in clientBin(key);

test.skipIf(absent("claude"))(
  "Claude Code: the printed line pasted on a fresh HOME, then again beside another server: derun once, the other kept",
  async () => {
    const { home, env } = freshHome("claude");
    const line = (await config(home, "claude-code")).stdout.trim();
    ok(await paste(line, env, home));
    ok(await paste("claude mcp add --scope user other -- /bin/true", env, home));
    ok(await paste(line, env, home)); // before: "MCP server derun already exists in user config", exit 1
    const servers = JSON.parse(readFileSync(join(home, ".claude.json"), "utf8")).mcpServers;
    expect(Object.keys(servers).sort()).toEqual(["derun", "other"]);
    expect(servers.derun.args).toEqual([CLI_ENTRY, "mcp"]);
  },
  TIMEOUT,
);

test.skipIf(absent("codex"))(
  "Codex: the printed codex mcp add line on a HOME without ~/.codex, then again beside another server: one derun table",
  async () => {
    const { home, env } = freshHome("codex");
    const printed = await config(home, "codex");
    const line = /derun there\): (codex mcp add .*)$/m.exec(printed.stderr)?.[1];
    expect(line).toBeDefined();
    expect(printed.stderr).not.toContain(">> ~/.codex/config.toml");
    expect(existsSync(join(home, ".codex"))).toBe(false);
    ok(await paste(line!, env, home));
    ok(await paste("codex mcp add other -- /bin/true", env, home));
    ok(await paste(line!, env, home));
    const toml = readFileSync(join(home, ".codex", "config.toml"), "utf8");
    expect(toml.match(/^\[mcp_servers\.derun\]$/gm)).toHaveLength(1);
    const servers = (Bun.TOML.parse(toml) as { mcp_servers: Record<string, { args: string[] }> }).mcp_servers;
    expect(Object.keys(servers).sort()).toEqual(["derun", "other"]);
    expect(servers.derun!.args).toEqual([CLI_ENTRY, "mcp"]);
    // What docs/agents.md explains: `codex mcp list` starts nothing; "Unsupported" is its OAuth column.
    const list = await paste("codex mcp list", env, home);
    expect(list.stdout).toMatch(/^Name +Command +Args +Env +Cwd +Status +Auth/m);
    expect(list.stdout).toMatch(/^derun +\S+ .* enabled +Unsupported/m);
    const agents = readFileSync(join(CLI_ENTRY, "../../../docs/agents.md"), "utf8").replace(/\s+/g, " ");
    expect(agents).toContain("`Status enabled` means derun is configured and on; `Auth Unsupported` is not an error");
  },
  TIMEOUT,
);

test.skipIf(absent("gemini"))(
  "Gemini CLI: the printed line twice, beside another server",
  async () => {
    const { home, env } = freshHome("gemini");
    const line = (await config(home, "gemini")).stdout.trim();
    ok(await paste(line, env, home));
    ok(await paste("gemini mcp add --scope user other /bin/true", env, home));
    ok(await paste(line, env, home));
    const servers = JSON.parse(readFileSync(join(home, ".gemini", "settings.json"), "utf8")).mcpServers;
    expect(Object.keys(servers).sort()).toEqual(["derun", "other"]);
  },
  TIMEOUT,
);

test(
  "--merge: Cursor's file made with its directory, then merged again beside another server; a file with comments is left alone",
  async () => {
    const { home } = freshHome();
    const file = join(home, ".cursor", "mcp.json");
    const first = await config(home, "cursor", "--merge", file);
    expect([first.exitCode, first.stdout]).toEqual([0, ""]);
    expect(first.stderr).toContain(`derun: Cursor: derun added in ${file}, everything else in it kept.`);
    const other = { command: "/usr/bin/other-server", args: ["--stdio"] };
    const current = JSON.parse(readFileSync(file, "utf8"));
    writeFileSync(file, JSON.stringify({ ...current, mcpServers: { other, ...current.mcpServers }, theme: "dark" }));
    const again = await config(home, "cursor", "--merge", file);
    expect(again.stderr).toContain("derun: Cursor: derun replaced in");
    const merged = JSON.parse(readFileSync(file, "utf8"));
    expect(merged.theme).toBe("dark");
    expect(merged.mcpServers.other).toEqual(other);
    expect(merged.mcpServers.derun).toMatchObject({ args: [CLI_ENTRY, "mcp"], env: { DERUN_STATE_ROOT: state.path } });

    const commented = join(home, "vscode.json");
    writeFileSync(commented, '{ // mine\n "servers": {} }');
    const refused = await config(home, "vscode", "--merge", commented);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/^derun: .*vscode\.json is not plain JSON \(.*comments\?\): add derun's entry by hand$/m);
    expect(readFileSync(commented, "utf8")).toBe('{ // mine\n "servers": {} }');
    const codex = await config(home, "codex", "--merge", join(home, "x.toml"));
    expect([codex.exitCode, codex.stderr.split("\n")[0]]).toEqual([
      2,
      "derun: Codex has no file for --merge: run the line derun mcp config codex prints",
    ]);
  },
  TIMEOUT,
);

test.skipIf(absent("inspector"))(
  "the merged Cursor file starts derun mcp for a real client (the MCP Inspector's CLI)",
  async () => {
    const { home, env } = freshHome("inspector");
    const file = join(home, ".cursor", "mcp.json");
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify({ mcpServers: { other: { command: "/bin/true" } } }));
    ok(await config(home, "cursor", "--merge", file));
    const inspector = (clientBin("inspector") as { bin: string }).bin;
    const listed = await exec([inspector, "--cli", "--config", file, "--server", "derun", "--method", "tools/list"], { env, cwd: home });
    ok(listed);
    expect(JSON.parse(listed.stdout).tools.map((tool: { name: string }) => tool.name)).toContain("derun_read_output");
  },
  TIMEOUT,
);
