/**
 * The compiled binary does what the source does: version and help, a pipe run and a PTY run
 * byte-exact, and an MCP round trip with the SDK's own client. It runs from a directory holding
 * nothing but itself, and ignores a bunfig.toml and a .env in the user's working directory.
 */
import { describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { queries } from "../../src/tools/index.ts";
import { derunEnv, randomBytes, runDerun, sha256, tempDir, text } from "../helpers/cli.ts";
import { spawnInPty } from "../helpers/pty.ts";
import { readSession } from "../helpers/session.ts";
import { shipFixture } from "../helpers/binary.ts";

const TIMEOUT = 30_000;
const ship = shipFixture("derun-ship-");
const { state, work } = ship;

/** Run the binary with pipes (so it picks the pipe transport) and collect everything. */
const run = (args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) =>
  runDerun(args, { stateRoot: state.path, cwd: work.path, derun: ship.binary, ...options });

describe("compiled binary", () => {
  test("sits alone in its directory", () => {
    if (process.env.DERUN_TEST_BINARY) return; // a given binary lives where CI put it
    expect(readdirSync(dirname(ship.binary))).toEqual([process.platform === "win32" ? "derun.exe" : "derun"]);
  });

  test("--version prints the package version; --help lists the commands with one-line descriptions", async () => {
    const version = await run(["--version"]);
    expect(version.exitCode).toBe(0);
    expect(text(version.stdout)).toBe(`${pkg.version}\n`);
    const help = await run(["--help"]);
    expect(help.exitCode).toBe(0);
    expect(text(help.stdout)).toMatch(/^ +run +Run a command exactly as without derun/m);
    expect(text(help.stdout)).toMatch(/^ +mcp +Serve the recorded sessions to an AI agent over MCP/m);
    expect(text(help.stdout)).toMatch(/^ +shell +Run your shell/m);
  });

  test(
    "ignores bunfig.toml (preload) and .env in the working directory",
    async () => {
      using dir = tempDir("derun-ship-cwd-");
      const marker = join(dir.path, "preload-ran");
      writeFileSync(join(dir.path, "preload.ts"), `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "");\n`);
      writeFileSync(join(dir.path, "bunfig.toml"), `preload = ["./preload.ts"]\n`);
      writeFileSync(join(dir.path, ".env"), "DERUN_SHIP_DOTENV=leaked\n");
      // Control: plain bun in the same directory does pick both up, so the fixture is live.
      const control = Bun.spawnSync([process.execPath, "-e", "process.stdout.write(String(process.env.DERUN_SHIP_DOTENV))"], {
        cwd: dir.path,
      });
      expect(text(control.stdout)).toBe("leaked");
      expect(existsSync(marker)).toBe(true);
      Bun.spawnSync(["rm", marker]);

      const done = await run(["run", "--", "sh", "-c", 'printf "<%s>" "$DERUN_SHIP_DOTENV"'], { cwd: dir.path });
      expect(done.exitCode).toBe(0);
      expect(text(done.stdout)).toBe("<>");
      expect(existsSync(marker)).toBe(false);
    },
    TIMEOUT,
  );

  test(
    "pipe run: stdout and stderr byte-exact and separate, exit status propagated, session recorded",
    async () => {
      const blob = randomBytes(1 << 20);
      writeFileSync(join(work.path, "blob"), blob);
      const done = await run(["run", "--session-id", "ship-pipe", "--", "sh", "-c", "cat blob; printf to-stderr >&2; exit 7"]);
      expect(done.exitCode).toBe(7);
      expect(sha256(done.stdout)).toBe(sha256(blob));
      expect(text(done.stderr)).toBe("to-stderr");
      const session = readSession(state.path, "ship-pipe");
      expect(session.meta).toMatchObject({ transport_mode: "pipe", tty_attached: false });
      expect(session.final).toMatchObject({ state: "exited", exit_code: 7 });
      expect(session.output.length).toBe(blob.length + "to-stderr".length);
    },
    TIMEOUT,
  );

  test.skipIf(process.platform === "win32")(
    "PTY run in a test-allocated terminal: the screen and output.bin get the bytes exactly",
    async () => {
      using pty = tempDir("derun-ship-pty-");
      const blob = randomBytes(1 << 20);
      writeFileSync(join(pty.path, "blob"), blob);
      // The child's side goes raw first: a cooked PTY turns LF into CRLF, with or without derun.
      const terminal = spawnInPty([ship.binary, "run", "--session-id", "ship-pty", "--", "sh", "-c", "stty raw -echo; cat blob"], {
        env: derunEnv(state.path, { TERM: "xterm-256color" }),
        cwd: pty.path,
      });
      const exit = await terminal.exited;
      expect(exit.exitCode).toBe(0);
      expect(sha256(terminal.output())).toBe(sha256(blob));
      const session = readSession(state.path, "ship-pty");
      expect(sha256(session.output)).toBe(sha256(blob));
      expect(session.meta).toMatchObject({ transport_mode: "posix-pty", tty_attached: true });
      // The screen's writer thread is a second module in the executable: it must have been found.
      expect(readFileSync(join(state.path, "logs", "derun.jsonl"), "utf8")).not.toContain("output_writer_thread_unavailable");
    },
    TIMEOUT,
  );

  test(
    "MCP round trip: the SDK client lists the tools and reads a session the binary recorded",
    async () => {
      const done = await run(["run", "--session-id", "ship-mcp", "--", "sh", "-c", "printf hello; printf -- -world >&2"]);
      expect(done.exitCode).toBe(0);
      const client = new Client({ name: "derun-ship", version: "0" });
      await client.connect(
        new StdioClientTransport({ command: ship.binary, args: ["mcp"], env: derunEnv(state.path), cwd: work.path, stderr: "pipe" }),
      );
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name).sort()).toEqual(queries.map((query) => query.name).sort());
        const answer = await client.callTool({ name: "derun_read_output", arguments: { session_id: "ship-mcp", cursor: "0" } });
        expect(answer.isError).toBeFalsy();
        const result = answer.structuredContent as { chunks: { data: string }[]; eof: boolean; session_state: string };
        expect(result.chunks.map((c) => c.data).join("")).toBe("hello-world");
        expect(result).toMatchObject({ eof: true, session_state: "exited" });
      } finally {
        await client.close();
      }
    },
    TIMEOUT,
  );
});
