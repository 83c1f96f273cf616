/**
 * The npm package as users get it: `bun pm pack`, installed into an empty directory, then
 * `bunx derun run -- echo ok` and `bunx derun mcp` from there, and the `derun/plugin` entry.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { derunEnv, REPO_ROOT, tempDir, text } from "../helpers/cli.ts";

const TIMEOUT = 60_000;
const packDir = tempDir("derun-ship-pack-");
const app = tempDir("derun-ship-app-");
const state = tempDir("derun-ship-pack-state-");
let tarball: string;
let packed: string[];

async function sh(argv: string[], cwd: string) {
  const proc = Bun.spawn(argv, { cwd, env: derunEnv(state.path), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).bytes(), new Response(proc.stderr).bytes(), proc.exited]);
  return { exitCode: proc.exitCode, stdout: text(stdout), stderr: text(stderr) };
}

beforeAll(async () => {
  const pack = await sh([process.execPath, "pm", "pack", "--destination", packDir.path], REPO_ROOT);
  if (pack.exitCode !== 0) throw new Error(`bun pm pack failed: ${pack.stderr}`);
  tarball = join(packDir.path, readdirSync(packDir.path).find((f) => f.endsWith(".tgz"))!);
  packed = (await sh(["tar", "-tzf", tarball], packDir.path)).stdout.split("\n").filter(Boolean);
  writeFileSync(join(app.path, "package.json"), JSON.stringify({ name: "derun-ship-app", private: true }));
  const add = await sh([process.execPath, "add", tarball], app.path);
  if (add.exitCode !== 0) throw new Error(`bun add ${tarball} failed: ${add.stderr}`);
}, TIMEOUT);
afterAll(() => {
  for (const dir of [packDir, app, state]) dir[Symbol.dispose]();
});

describe("npm package", () => {
  test("the tarball holds the sources, the launcher, package.json and README, and no tests, examples or scripts", () => {
    expect(packed).toContain("package/package.json");
    expect(packed).toContain("package/src/cli/index.ts");
    expect(packed).toContain("package/src/plugin-api/index.ts");
    for (const path of packed) expect(path).toMatch(/^package\/(src\/|bin\/|package\.json$|README\.md$|LICENSE$)/);
  });

  test(
    "bunx derun run -- echo ok, from an empty directory with only the tarball installed",
    async () => {
      const done = await sh([process.execPath, "x", "derun", "run", "--session-id", "from-bunx", "--", "echo", "ok"], app.path);
      expect(done.stderr).toBe("");
      expect(done.stdout).toBe("ok\n");
      expect(done.exitCode).toBe(0);
      const version = await sh([process.execPath, "x", "derun", "--version"], app.path);
      expect(version.stdout).toBe(`${pkg.version}\n`);
    },
    TIMEOUT,
  );

  test(
    "bunx derun mcp: an SDK client reads the session bunx derun run recorded",
    async () => {
      await sh([process.execPath, "x", "derun", "run", "--session-id", "for-mcp", "--", "echo", "over mcp"], app.path);
      const client = new Client({ name: "derun-ship-pack", version: "0" });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: ["x", "derun", "mcp"],
          env: derunEnv(state.path),
          cwd: app.path,
          stderr: "pipe",
        }),
      );
      try {
        const answer = await client.callTool({ name: "derun_read_output", arguments: { session_id: "for-mcp", cursor: "0" } });
        expect(answer.isError).toBeFalsy();
        const result = answer.structuredContent as { chunks: { data: string }[]; eof: boolean };
        expect(result.chunks.map((c) => c.data).join("")).toBe("over mcp\n");
        expect(result.eof).toBe(true);
      } finally {
        await client.close();
      }
    },
    TIMEOUT,
  );

  test(
    "derun/plugin exports the transport helpers and nothing else",
    async () => {
      writeFileSync(join(app.path, "probe.ts"), `import * as api from "derun/plugin";\nconsole.log(Object.keys(api).sort().join(","));\n`);
      const done = await sh([process.execPath, "probe.ts"], app.path);
      expect(done.stderr).toBe("");
      expect(done.stdout).toBe(
        [
          "DrainWindow,LeaderExecError,SpawnError,StopReports,childExitOf,defineTransport,forwardRest,isTerminal",
          "leaderUnavailable,openChildPty,openFifoPipe,openStreamPty,openStreamReader,pumpStream,readWindowSize",
          "spawnIgnoring,spawnStdio,startUnderLeader,systemClock,toSpawnError,watchStops",
        ].join(",") + "\n",
      );
    },
    TIMEOUT,
  );
});
