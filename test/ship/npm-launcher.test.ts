/**
 * npm users without Bun: the tarballs `bun scripts/pack.ts` writes (the main package with its
 * launcher, and this machine's platform package with the compiled binary), installed as npm users
 * install them, on a PATH without `bun`: `npm install -g`, then `npx`; and `bunx` (with Bun, as its
 * users have it). Each runs `derun --version`, `derun run -- echo ok` and `derun mcp` (the SDK's own
 * Client over stdio), and the binary must be the one that runs (`derun mcp config` names it).
 * npm's download cache is this machine's, preferred to the registry's metadata (content-addressed:
 * it changes the time, not the result).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import platforms from "../../bin/platforms.json" with { type: "json" };
import pkg from "../../package.json" with { type: "json" };
import { REPO_ROOT, tempDir } from "../helpers/cli.ts";
import { pathWithout } from "../helpers/path-without.ts";

const TIMEOUT = 600_000;
const platform = (platforms as Record<string, { name: string; exe: string }>)[`${process.platform}-${process.arch}`];
const work = tempDir("derun-npm-launcher-");
const dist = join(work.path, "dist");
const state = join(work.path, "state");
const prefix = join(work.path, "npm-global");
let mainTarball: string;
let platformTarball: string;
let noBunPath: string;

/** A user's environment: fresh HOME, the given PATH, nothing of derun's or Bun's. */
function userEnv(path: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(DERUN_|BUN_|XDG_|npm_)/i.test(key)) env[key] = value;
  }
  return {
    ...env,
    HOME: join(work.path, "home"),
    PATH: path,
    DERUN_STATE_ROOT: state,
    NO_COLOR: "1",
    npm_config_cache: join(homedir(), ".npm"),
    npm_config_prefer_offline: "true",
    npm_config_update_notifier: "false",
    ...extra,
  };
}

async function sh(argv: string[], env: Record<string, string>, cwd = work.path) {
  const proc = Bun.spawn(argv, { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return {
    code,
    stdout,
    stderr,
    context: `${argv.join(" ")}: exit ${code}\nstdout: ${stdout.slice(-2000)}\nstderr: ${stderr.slice(-2000)}`,
  };
}

/** An SDK client started as `command args`: initializes, lists the sessions, reads `id`'s text. */
async function readOverMcp(command: string, args: string[], env: Record<string, string>, id: string, cwd = work.path): Promise<string> {
  const client = new Client({ name: "derun-npm-launcher", version: "0" });
  await client.connect(new StdioClientTransport({ command, args, env, cwd, stderr: "pipe" }));
  try {
    expect(client.getServerVersion()?.name).toBe("derun");
    const listed = await client.callTool({ name: "derun_list_sessions", arguments: {} });
    expect(JSON.stringify(listed.structuredContent)).toContain(id);
    const read = await client.callTool({ name: "derun_read_output", arguments: { session_id: id, cursor: "0" } });
    return (read.structuredContent as { chunks: { data: string }[] }).chunks.map((chunk) => chunk.data).join("");
  } finally {
    await client.close();
  }
}

beforeAll(async () => {
  mkdirSync(join(work.path, "home"), { recursive: true });
  noBunPath = [join(prefix, "bin"), pathWithout(["bun", "bunx", "derun"], join(work.path, "system-bin"))].join(delimiter);
  const packed = await sh(
    [process.execPath, join(REPO_ROOT, "scripts", "pack.ts"), "--outdir", dist],
    { ...process.env } as Record<string, string>,
    REPO_ROOT,
  );
  if (packed.code !== 0) throw new Error(packed.context);
  const tarballs = readdirSync(dist).filter((name) => name.endsWith(".tgz"));
  mainTarball = join(dist, `derun-${pkg.version}.tgz`);
  platformTarball = join(dist, `${platform!.name}-${pkg.version}.tgz`);
  expect(tarballs.sort()).toEqual([`derun-${pkg.version}.tgz`, `${platform!.name}-${pkg.version}.tgz`].sort());
}, TIMEOUT);
afterAll(() => work[Symbol.dispose]());

describe.skipIf(platform === undefined)("npm, without Bun", () => {
  test(
    "npm install -g of the tarballs: derun --version, derun run -- echo ok, derun mcp, all from the binary",
    async () => {
      const env = userEnv(noBunPath, { npm_config_prefix: prefix });
      expect((await sh(["sh", "-c", "command -v bun || echo none"], env)).stdout).toBe("none\n");
      const install = await sh(["npm", "install", "-g", "--no-fund", "--no-audit", mainTarball, platformTarball], env);
      expect(install.code, install.context).toBe(0);
      const version = await sh(["derun", "--version"], env);
      expect(version.stdout, version.context).toBe(`${pkg.version}\n`);
      const run = await sh(["derun", "run", "--session-id", "npm-global", "--", "echo", "ok"], env);
      expect(run, run.context).toMatchObject({ code: 0, stdout: "ok\n", stderr: "" });
      const config = await sh(["derun", "mcp", "config", "cursor"], env);
      const server = JSON.parse(config.stdout).mcpServers.derun as { command: string; args: string[] };
      expect(server.command, config.context).toEndWith(join("node_modules", platform!.name, "bin", platform!.exe));
      expect(await readOverMcp(join(prefix, "bin", "derun"), ["mcp"], env, "npm-global")).toBe("ok\n");
    },
    TIMEOUT,
  );

  test(
    "without the platform package and without Bun: one line that says what to install, exit 1",
    async () => {
      const env = userEnv(noBunPath, { npm_config_prefix: prefix });
      const remove = await sh(["npm", "rm", "-g", platform!.name], env);
      expect(remove.code, remove.context).toBe(0);
      const done = await sh(["derun", "run", "--", "echo", "ok"], env);
      expect(done.code, done.context).toBe(1);
      expect(done.stdout).toBe("");
      const v = pkg.version;
      expect(done.stderr).toBe(
        `derun: the package ${platform!.name} (derun's binary for ${process.platform}-${process.arch}) is not installed, and Bun is ` +
          `not on PATH to run derun from source: install it beside derun (npm install -g ${platform!.name}@${v}; from tarballs, ` +
          `both in one command: npm install -g ./derun-${v}.tgz ./${platform!.name}-${v}.tgz), or install Bun (https://bun.sh, ` +
          "or npm install -g --prefix ~/.local bun) to run derun from source\n",
      );
    },
    TIMEOUT,
  );

  test(
    "npx --package <the tarballs> derun: --version, run -- echo ok, mcp",
    async () => {
      const env = userEnv(noBunPath);
      const npx = ["npx", "--yes", "--package", mainTarball, "--package", platformTarball];
      // One npx for the three commands (-c: a shell line with the packages' bins on PATH; each npx of
      // a 50 MB tarball costs tens of seconds here), then the client's own npx for derun mcp.
      const three = await sh([...npx, "-c", "derun --version && derun run --session-id npx -- echo ok && derun mcp config cursor"], env);
      expect(three.code, three.context).toBe(0);
      const [version, ok, ...config] = three.stdout.split("\n");
      expect([version, ok]).toEqual([pkg.version, "ok"]);
      expect(JSON.parse(config.join("\n")).mcpServers.derun.command, three.context).toEndWith(join(platform!.name, "bin", platform!.exe));
      expect(await readOverMcp("npx", [...npx.slice(1), "--", "derun", "mcp"], env, "npx")).toBe("ok\n");
    },
    TIMEOUT,
  );
});

describe.skipIf(platform === undefined)("bunx", () => {
  test(
    "bunx derun in a project that added the tarballs: the binary runs; --version, run -- echo ok, mcp",
    async () => {
      const project = join(work.path, "project");
      mkdirSync(project, { recursive: true });
      writeFileSync(join(project, "package.json"), JSON.stringify({ name: "derun-bunx-project", private: true }));
      const env = userEnv([join(work.path, "home", ".bun", "bin"), process.env.PATH ?? ""].join(delimiter), {
        BUN_INSTALL_CACHE_DIR: join(homedir(), ".bun", "install", "cache"),
      });
      const add = await sh([process.execPath, "add", mainTarball, platformTarball], env, project);
      expect(add.code, add.context).toBe(0);
      const version = await sh([process.execPath, "x", "derun", "--version"], env, project);
      expect(version.stdout, version.context).toBe(`${pkg.version}\n`);
      const run = await sh([process.execPath, "x", "derun", "run", "--session-id", "bunx", "--", "echo", "ok"], env, project);
      expect(run, run.context).toMatchObject({ code: 0, stdout: "ok\n", stderr: "" });
      const config = await sh([process.execPath, "x", "derun", "mcp", "config", "cursor"], env, project);
      expect(JSON.parse(config.stdout).mcpServers.derun.command, config.context).toBe(
        join(project, "node_modules", platform!.name, "bin", platform!.exe),
      );
      expect(await readOverMcp(process.execPath, ["x", "derun", "mcp"], env, "bunx", project)).toBe("ok\n");
    },
    TIMEOUT,
  );
});
