/**
 * The packed tarball as the README installs it, on a clean HOME (no Bun cache, nothing global):
 * `bunx --package <tarball> derun` from an empty directory, and `bun add -g <tarball>` then `derun`
 * from PATH. Each records a session, prints its Cursor configuration with `derun mcp config`, and an
 * MCP client started from exactly that configuration reads the session: the SDK's own Client, and
 * the MCP Inspector's CLI when it is installed (test/cli/mcp-config/install-clients.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { REPO_ROOT, tempDir } from "../helpers/cli.ts";
import { clientBin, clientPath } from "../helpers/clients.ts";
import { exec } from "../helpers/exec.ts";

const TIMEOUT = 90_000;
const inspector = clientBin("inspector");
if ("missing" in inspector) console.log(`skip: ${inspector.missing}`);

const work = tempDir("derun-ship-connect-");
const home = join(work.path, "home");
const state = join(work.path, "state");
const empty = join(work.path, "empty");
let tarball: string;

/** A new user's shell: clean HOME and Bun install dir, bun on PATH, nothing of derun's. */
function userEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(DERUN_|BUN_|XDG_)/.test(name)) env[name] = value;
  }
  const bunBin = join(home, ".bun", "bin");
  return {
    ...env,
    HOME: home,
    BUN_INSTALL: join(home, ".bun"),
    PATH: [bunBin, dirname(process.execPath), env.PATH ?? ""].join(delimiter),
    DERUN_STATE_ROOT: state,
    NO_COLOR: "1",
  };
}

beforeAll(async () => {
  for (const dir of [home, state, empty]) mkdirSync(dir, { recursive: true });
  const pack = await exec([process.execPath, "pm", "pack", "--destination", work.path], { env: userEnv(), cwd: REPO_ROOT });
  if (pack.exitCode !== 0) throw new Error(`bun pm pack failed: ${pack.stderr}`);
  tarball = join(work.path, readdirSync(work.path).find((name) => name.endsWith(".tgz"))!);
}, TIMEOUT);
afterAll(() => work[Symbol.dispose](), TIMEOUT); // a global install and its cache: many files

/** The SDK's Client, started from the printed Cursor entry with no PATH, reads `session`. */
async function readWithSdk(entry: { command: string; args: string[]; env: Record<string, string> }, session: string): Promise<string> {
  const client = new Client({ name: "derun-ship-connect", version: "0" });
  await client.connect(
    new StdioClientTransport({ ...entry, env: { PATH: "/nonexistent", HOME: home, ...entry.env }, cwd: empty, stderr: "pipe" }),
  );
  try {
    const answer = await client.callTool({ name: "derun_read_output", arguments: { session_id: session } });
    return (answer.structuredContent as { chunks: { data: string }[] }).chunks.map((chunk) => chunk.data).join("");
  } finally {
    await client.close();
  }
}

/** The Inspector CLI, given the printed Cursor file, reads `session`. */
async function readWithInspector(file: string, session: string): Promise<string> {
  if (!("bin" in inspector)) throw new Error("unreachable");
  const argv = [
    inspector.bin,
    "--cli",
    "--config",
    file,
    "--server",
    "derun",
    "--method",
    "tools/call",
    "--tool-name",
    "derun_read_output",
  ];
  // The Inspector 2.x runs on Node 22 (from the clients' cache); it has no keychain here.
  const env = { ...userEnv(), PATH: clientPath("inspector", userEnv().PATH), MCP_INSPECTOR_SECRET_STORE: "memory" };
  const call = await exec([...argv, "--tool-arg", `session_id=${session}`], { env, cwd: empty });
  if (call.exitCode !== 0) throw new Error(`inspector exited ${call.exitCode}: ${call.stderr}`);
  return (JSON.parse(call.stdout).structuredContent as { chunks: { data: string }[] }).chunks.map((chunk) => chunk.data).join("");
}

describe.each([
  { how: "bunx --package <tarball> derun, in an empty directory", derun: () => [process.execPath, "x", "--package", tarball, "derun"] },
  { how: "bun add -g <tarball>, then derun on PATH", derun: () => ["derun"] },
])("$how", ({ how, derun: derunOf }) => {
  const session = how.startsWith("bunx") ? "via-bunx" : "via-global";
  const configFile = join(work.path, `${session}-cursor.json`);
  let entry: { command: string; args: string[]; env: Record<string, string> };

  beforeAll(async () => {
    if (session === "via-global") {
      const add = await exec([process.execPath, "add", "-g", tarball], { env: userEnv(), cwd: empty });
      if (add.exitCode !== 0) throw new Error(`bun add -g failed: ${add.stderr}`);
    }
  }, TIMEOUT);

  test(
    "derun run -- echo ok, then derun mcp config cursor",
    async () => {
      const run = await exec([...derunOf(), "run", "--session-id", session, "--", "echo", "ok"], { env: userEnv(), cwd: empty });
      expect({ exitCode: run.exitCode, stdout: run.stdout }).toEqual({ exitCode: 0, stdout: "ok\n" });
      const version = await exec([...derunOf(), "--version"], { env: userEnv(), cwd: empty });
      expect(version.stdout).toBe(`${pkg.version}\n`);
      const printed = await exec([...derunOf(), "mcp", "config", "cursor"], { env: userEnv(), cwd: empty });
      expect(printed.exitCode).toBe(0);
      writeFileSync(configFile, printed.stdout);
      entry = JSON.parse(printed.stdout).mcpServers.derun;
      expect(entry.env).toEqual({ DERUN_STATE_ROOT: state });
      expect(entry.args.at(-2)).toEndWith(join("node_modules", "derun", "src", "cli", "index.ts"));
      expect(readdirSync(empty)).toEqual([]); // nothing left in the user's directory
    },
    TIMEOUT,
  );

  test(
    "the SDK's Client, started from that configuration with no PATH, reads the session",
    async () => {
      expect(await readWithSdk(entry, session)).toBe("ok\n");
    },
    TIMEOUT,
  );

  test.skipIf("missing" in inspector)(
    "the MCP Inspector CLI, given that file, reads the session",
    async () => {
      expect(await readWithInspector(configFile, session)).toBe("ok\n");
    },
    TIMEOUT,
  );
});
