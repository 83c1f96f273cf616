/**
 * Records which of the bundle's functions derun's common starts use, for the build's profile-guided
 * bytecode layout (`compile.bytecodeOrder` in scripts/build.ts): Bun then places that bytecode
 * together at the front, and a start touches fewer of the executable's pages (`derun run -- true`
 * peaked 1.2 MB lower, docs/performance.md, "Issue 37, item 6: `derun run`'s start and growth").
 *
 *   bun run build && bun scripts/bytecode-order.ts
 *
 * Runs dist/derun (`BUN_BYTECODE_ORDER_OUT`) as `derun run` through pipes, `derun run` in a PTY and
 * `derun mcp` answering an agent's first calls, in a private state root, and writes one profile
 * each to scripts/build/bytecode-order/, the most common start first. A profile from an older build
 * still applies (Bun matches functions by their code): run this again when a start's code moved a lot.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const ROOT = path.resolve(import.meta.dir, "..");
const BINARY = path.join(ROOT, "dist", process.platform === "win32" ? "derun.exe" : "derun");
export const ORDER_DIR = path.join(ROOT, "scripts/build/bytecode-order");
/** The profiles, the most common way of starting derun first (Bun's rule for several files). */
export const PROFILES = ["run-pipe.txt", "run-pty.txt", "mcp.txt"] as const;
const COMMAND = ["sh", "-c", "echo recorded; echo also >&2; sleep 0.3"];

async function main(): Promise<void> {
  if (!fs.existsSync(BINARY)) throw new Error(`${BINARY} is missing: run "bun run build" first`);
  const stateRoot = fs.mkdtempSync(path.join(os.tmpdir(), "derun-order-"));
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "derun-order-out-"));
  try {
    const env = { ...process.env, DERUN_STATE_ROOT: stateRoot, NO_COLOR: "1" };
    const profile = (name: string) => ({ ...env, BUN_BYTECODE_ORDER_OUT: path.join(out, name) });
    await runThroughPipes(profile("run-pipe.txt"));
    await runInPty(profile("run-pty.txt"));
    await serveMcp(profile("mcp.txt"));
    fs.mkdirSync(ORDER_DIR, { recursive: true });
    for (const name of PROFILES) {
      const written = path.join(out, name);
      if (!fs.existsSync(written)) throw new Error(`derun wrote no profile for ${name}`);
      fs.copyFileSync(written, path.join(ORDER_DIR, name));
      console.log(`${path.relative(ROOT, path.join(ORDER_DIR, name))}: ${fs.readFileSync(written, "utf8").split("\n").length - 1} lines`);
    }
  } finally {
    fs.rmSync(stateRoot, { recursive: true, force: true });
    fs.rmSync(out, { recursive: true, force: true });
  }
}

async function runThroughPipes(env: Record<string, string | undefined>): Promise<void> {
  const proc = Bun.spawn([BINARY, "run", "--session-id", "order-pipe", "--", ...COMMAND], { env, stdio: ["ignore", "pipe", "pipe"] });
  await Promise.all([new Response(proc.stdout).arrayBuffer(), new Response(proc.stderr).arrayBuffer()]);
  if ((await proc.exited) !== 0) throw new Error(`derun run through pipes exited ${proc.exitCode}`);
}

/** In a terminal of Bun's own (all three fds a TTY): the posix-pty transport. */
async function runInPty(env: Record<string, string | undefined>): Promise<void> {
  const proc = Bun.spawn([BINARY, "run", "--session-id", "order-pty", "--", ...COMMAND], {
    env,
    terminal: { cols: 80, rows: 24, data: () => {} },
  });
  if ((await proc.exited) !== 0) throw new Error(`derun run in a PTY exited ${proc.exitCode}`);
  proc.terminal?.close();
}

/** An agent's first calls, one at a time, each answered before the next: the server's usual start. */
async function serveMcp(env: Record<string, string | undefined>): Promise<void> {
  const proc = Bun.spawn([BINARY, "mcp"], { env, stdio: ["pipe", "pipe", "inherit"] });
  const lines = answerLines(proc.stdout);
  const requests = [
    { method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "order", version: "0" } } },
    { method: "tools/list", params: {} },
    { method: "tools/call", params: { name: "derun_list_sessions", arguments: {} } },
    { method: "tools/call", params: { name: "derun_read_output", arguments: { session_id: "order-pipe" } } },
  ];
  for (const [id, request] of requests.entries()) {
    proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, ...request })}\n`);
    if (id === 0) proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    await proc.stdin.flush();
    const answer = await lines.next();
    if (answer.done || !answer.value.includes('"result"')) throw new Error(`derun mcp did not answer ${request.method}: ${answer.value}`);
  }
  await proc.stdin.end();
  if ((await proc.exited) !== 0) throw new Error(`derun mcp exited ${proc.exitCode}`);
}

async function* answerLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let pending = "";
  for await (const chunk of stream) {
    pending += decoder.decode(chunk, { stream: true });
    for (let end = pending.indexOf("\n"); end !== -1; end = pending.indexOf("\n")) {
      yield pending.slice(0, end);
      pending = pending.slice(end + 1);
    }
  }
}

if (import.meta.main) await main();
