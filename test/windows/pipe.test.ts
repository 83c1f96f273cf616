/**
 * The real derun.exe under Wine, pipe transport and the readers (docs/windows.md): a run ends within
 * its timeout (the lock taken through a handle derun opened itself, not one ucrtbase could not
 * find), its channels stay apart, every session file is there, `ls`/`cat`/`mcp` read it, and a
 * reader's liveness probe tells a running session from one whose derun died.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { tempDir, text } from "../helpers/cli.ts";
import {
  runWine,
  setUpLane,
  stdinFile,
  suiteName,
  wineCommand,
  wineMissing,
  winePrefix,
  windowsPath,
  WINE_TEST_TIMEOUT_MS,
} from "./wine.ts";

const state = tempDir("derun-wine-");
afterAll(() => state[Symbol.dispose]());

const sessions = () => (existsSync(join(state.path, "sessions")) ? readdirSync(join(state.path, "sessions")) : []);
const readJson = (id: string, name: string) => JSON.parse(readFileSync(join(state.path, "sessions", id, name), "utf8"));
const failed = (call: { exitCode: number | null; timedOut: boolean; stderr: Uint8Array }) =>
  `exit ${call.exitCode}${call.timedOut ? " (timed out: killed)" : ""}, stderr ${JSON.stringify(text(call.stderr).slice(0, 500))}`;

describe.skipIf(wineMissing !== undefined)(suiteName("derun.exe under Wine: pipe transport and readers"), () => {
  beforeAll(() => setUpLane(), 600_000);

  test(
    "--version prints the package's version",
    async () => {
      const call = await runWine(["--version"], { stateRoot: state.path });
      expect(call.exitCode, failed(call)).toBe(0);
      expect(text(call.stdout).trim()).toBe(pkg.version);
    },
    WINE_TEST_TIMEOUT_MS,
  );

  let id = "";
  test(
    "run --transport pipe: stdout and stderr apart, exit 3, every session file",
    async () => {
      const call = await runWine(["run", "--transport", "pipe", "--", "cmd", "/c", "echo out & echo err 1>&2 & exit 3"], {
        stateRoot: state.path,
      });
      expect(call.exitCode, failed(call)).toBe(3);
      expect(text(call.stdout)).toBe("out \r\n");
      expect(text(call.stderr)).toBe("err  \r\n");
      id = sessions()[0] ?? "";
      const files = readdirSync(join(state.path, "sessions", id!)).sort();
      expect(files).toEqual(expect.arrayContaining(["append.lock", "final.json", "index.jsonl", "meta.json", "output.bin"]));
      const meta = readJson(id!, "meta.json");
      expect(meta).toMatchObject({
        session_id: id,
        transport_mode: "pipe",
        tty_attached: false,
        command: ["cmd", "/c", "echo out & echo err 1>&2 & exit 3"],
      });
      expect(meta.pid).toBeGreaterThan(0);
      expect(readJson(id!, "final.json")).toMatchObject({ state: "exited", exit_code: 3, output_lines: { stdout: 1, stderr: 1 } });
      const index = readFileSync(join(state.path, "sessions", id!, "index.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(new Set(index.map((entry) => entry.channel))).toEqual(new Set(["stdout", "stderr"]));
      const output = readFileSync(join(state.path, "sessions", id!, "output.bin"));
      const byChannel = (channel: string) =>
        index
          .filter((entry) => entry.channel === channel)
          .map((entry) => output.subarray(entry.offset, entry.offset + entry.length).toString())
          .join("");
      expect([byChannel("stdout"), byChannel("stderr")]).toEqual(["out \r\n", "err  \r\n"]);
    },
    WINE_TEST_TIMEOUT_MS,
  );

  test(
    "ls and cat read that session",
    async () => {
      expect(id).not.toBe("");
      const ls = await runWine(["ls", "--json"], { stateRoot: state.path });
      expect(ls.exitCode, failed(ls)).toBe(0);
      expect(JSON.parse(text(ls.stdout)).sessions).toEqual([
        expect.objectContaining({ session_id: id, state: "exited", exit_code: 3, transport_mode: "pipe" }),
      ]);
      const cat = await runWine(["cat", id], { stateRoot: state.path });
      expect(cat.exitCode, failed(cat)).toBe(0);
      expect(text(cat.stdout)).toContain("out");
      expect(text(cat.stdout)).toContain("err");
      // The exact bytes: derun.exe's stdout adds no CR and drops none.
      const raw = await runWine(["cat", id, "--view", "raw"], { stateRoot: state.path });
      expect(raw.exitCode, failed(raw)).toBe(0);
      expect(Buffer.from(raw.stdout)).toEqual(readFileSync(join(state.path, "sessions", id, "output.bin")));
    },
    WINE_TEST_TIMEOUT_MS,
  );

  test(
    "the default state root is %LOCALAPPDATA%\\derun\\state; rm removes a session there",
    async () => {
      const sessionId = `default-root-${Date.now()}`;
      using local = tempDir("derun-localappdata-");
      // Windows honours LOCALAPPDATA from the environment; Wine sets its own (the prefix's).
      const env = { LOCALAPPDATA: windowsPath(local.path) };
      const run = await runWine(["run", "--session-id", sessionId, "--", "cmd", "/c", "echo here"], { stateRoot: undefined, env });
      expect(run.exitCode, failed(run)).toBe(0);
      const prefix = await winePrefix();
      const roots =
        prefix === undefined
          ? [join(local.path, "derun", "state")]
          : readdirSync(join(prefix, "drive_c", "users")).map((user) =>
              join(prefix, "drive_c", "users", user, "AppData", "Local", "derun", "state"),
            );
      const [dir] = roots.map((root) => join(root, "sessions", sessionId)).filter((candidate) => existsSync(candidate));
      expect(dir, `no session ${sessionId} under ${roots.join(", ")}`).toBeDefined();
      expect(JSON.parse(readFileSync(join(dir!, "final.json"), "utf8"))).toMatchObject({ state: "exited", exit_code: 0 });
      const ls = await runWine(["ls", "--json"], { stateRoot: undefined, env });
      expect(JSON.parse(text(ls.stdout)).sessions).toContainEqual(expect.objectContaining({ session_id: sessionId, state: "exited" }));
      const rm = await runWine(["rm", sessionId], { stateRoot: undefined, env });
      expect(rm.exitCode, failed(rm)).toBe(0);
      expect(existsSync(dir!)).toBe(false);
    },
    WINE_TEST_TIMEOUT_MS,
  );

  test(
    "mcp serves it: initialize, tools/list, tools/call (stdin from a file)",
    async () => {
      expect(id).not.toBe("");
      const requests = [
        {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "wine-test", version: "1" } },
        },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: 2, method: "tools/list" },
        { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "derun_read_output", arguments: { session_id: id } } },
      ];
      const call = await runWine(["mcp"], {
        stateRoot: state.path,
        stdin: stdinFile(requests.map((request) => `${JSON.stringify(request)}\n`).join("")),
      });
      expect(call.exitCode, failed(call)).toBe(0);
      const answers = new Map(
        text(call.stdout)
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line))
          .map((answer) => [answer.id, answer]),
      );
      expect(answers.get(1)?.result.serverInfo).toEqual({ name: "derun", version: pkg.version });
      expect(answers.get(2)?.result.tools.map((tool: { name: string }) => tool.name)).toContain("derun_read_output");
      const read = answers.get(3)?.result.structuredContent;
      expect(read).toMatchObject({ session_id: id, eof: true, session_state: "exited" });
      // Each stream whole; across the two pipes, chunks come in the order derun read them (cmd writes
      // "out " and its line end apart: on a loaded machine the stderr line was read between them).
      const byChannel = (channel: string) =>
        read.chunks
          .filter((chunk: { channel: string }) => chunk.channel === channel)
          .map((chunk: { data: string }) => chunk.data)
          .join("");
      expect({ stdout: byChannel("stdout"), stderr: byChannel("stderr") }).toEqual({ stdout: "out \r\n", stderr: "err  \r\n" });
    },
    WINE_TEST_TIMEOUT_MS,
  );

  test(
    "a running session is seen running, and failed once its derun is killed (the liveness probe)",
    async () => {
      rmSync(join(state.path, "sessions"), { recursive: true, force: true });
      const { argv, env } = await wineCommand(state.path);
      // ping waits about a second per echo: long enough to look at, killed with its derun below.
      const derun = Bun.spawn([...argv, "run", "--transport", "pipe", "--", "cmd", "/c", "ping -n 60 127.0.0.1 >nul"], {
        env,
        stdin: Bun.file(stdinFile()),
        stdout: "ignore",
        stderr: "ignore",
        timeout: 300_000,
      });
      try {
        // Running once meta.json names the child's PID.
        let live = "";
        while (!live) {
          const [candidate] = sessions();
          if (candidate && existsSync(join(state.path, "sessions", candidate, "meta.json")) && readJson(candidate, "meta.json").pid > 0)
            live = candidate;
          else if (derun.exitCode !== null) throw new Error(`derun.exe ended (exit ${derun.exitCode}) before its session ran`);
          else await Bun.sleep(100);
        }
        const running = await runWine(["ls", "--json"], { stateRoot: state.path });
        expect(running.exitCode, failed(running)).toBe(0);
        expect(JSON.parse(text(running.stdout)).sessions).toEqual([expect.objectContaining({ session_id: live, state: "running" })]);

        derun.kill("SIGKILL"); // under Wine the Linux process is the Windows one: its handles close, the lock drops
        await derun.exited;
        const dead = await runWine(["ls", "--json"], { stateRoot: state.path });
        expect(dead.exitCode, failed(dead)).toBe(0);
        expect(existsSync(join(state.path, "sessions", live, "final.json"))).toBe(false);
        expect(JSON.parse(text(dead.stdout)).sessions).toEqual([expect.objectContaining({ session_id: live, state: "failed" })]);
      } finally {
        derun.kill("SIGKILL");
        await derun.exited;
      }
    },
    WINE_TEST_TIMEOUT_MS,
  );
});
