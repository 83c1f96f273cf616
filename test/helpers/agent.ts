/**
 * What the agent-view tests need: real recordings made by running real programs through `derun run`
 * (on a PTY the test allocates, or with pipes), and the SDK's own Client over stdio to `derun mcp`
 * on the same state root, measuring each answer as sent (the JSON-RPC result).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import * as fs from "node:fs";
import * as path from "node:path";
import { derunArgv, derunEnv, REPO_ROOT, runDerun } from "./cli.ts";
import { spawnInPty, type PtyRun } from "./pty.ts";

export interface AgentAnswer {
  readonly isError: boolean;
  /** The text content: what a model reads. */
  readonly text: string;
  /** structuredContent, when the tool sends it. */
  readonly result: any;
  /** Bytes of the JSON-RPC result as it came over stdio (content, structuredContent, isError); for calls made one at a time. */
  readonly bytes: number;
}

export interface AgentClient extends AsyncDisposable {
  readonly client: Client;
  call(name: string, args?: Record<string, unknown>): Promise<AgentAnswer>;
}

/**
 * A Client over stdio to `derun mcp` reading `stateRoot` (`derun`: the argv that starts derun, default
 * the one under test; `env`: more of its environment).
 */
export async function connectAgent(
  stateRoot: string,
  derun: readonly string[] = derunArgv(),
  env: Record<string, string> = {},
): Promise<AgentClient> {
  const client = new Client({ name: "derun-agent-test", version: "0" });
  const [command = process.execPath, ...args] = derun;
  const transport = new StdioClientTransport({
    command,
    args: [...args, "mcp"],
    env: derunEnv(stateRoot, env),
    cwd: REPO_ROOT,
    stderr: "pipe",
  });
  await client.connect(transport);
  // The SDK parses each line it reads; serialized again it is what the server wrote (JSON.stringify
  // both ways, same key order), so its length is the answer's size on the wire.
  let lastSize = 0;
  const deliver = transport.onmessage!;
  transport.onmessage = (message: JSONRPCMessage) => {
    if ("id" in message && "result" in message) lastSize = Buffer.byteLength(JSON.stringify(message.result));
    deliver(message);
  };
  return {
    client,
    async call(name, args = {}) {
      const answer = await client.callTool({ name, arguments: args });
      const bytes = lastSize;
      const content = answer.content as { type: string; text: string }[];
      return { isError: answer.isError === true, text: content[0]!.text, result: answer.structuredContent, bytes };
    },
    [Symbol.asyncDispose]: () => client.close(),
  };
}

/** Environment for recorded programs: colours on, UTF-8, the state root. */
export const recordEnv = (stateRoot: string, extra: Record<string, string> = {}): Record<string, string> => {
  const env = derunEnv(stateRoot, { TERM: "xterm-256color", LANG: "C.UTF-8", LC_ALL: "C.UTF-8", ...extra });
  delete env.NO_COLOR;
  return env;
};

/**
 * `derun run --session-id id -- argv` on a real PTY of `cols` x `rows` (so derun picks its PTY
 * transport); `drive` types, resizes and waits for what it needs. Resolves once derun has exited.
 */
export async function recordInPty(
  stateRoot: string,
  id: string,
  argv: readonly string[],
  options: {
    cols?: number;
    rows?: number;
    cwd?: string;
    env?: Record<string, string>;
    drive?: (run: PtyRun) => Promise<void>;
    derun?: readonly string[];
  } = {},
): Promise<{ exitCode: number | null; signalCode: string | null }> {
  const run = spawnInPty([...(options.derun ?? derunArgv()), "run", "--session-id", id, "--", ...argv], {
    env: options.env ?? recordEnv(stateRoot),
    cols: options.cols ?? 120,
    rows: options.rows ?? 30,
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  try {
    await options.drive?.(run);
  } catch (error) {
    run.proc.kill("SIGKILL");
    await run.exited;
    throw error;
  }
  return run.exited;
}

/** `derun run --session-id id -- argv` with pipes (derun picks its pipe transport). */
export async function recordWithPipes(
  stateRoot: string,
  id: string,
  argv: readonly string[],
  options: { cwd?: string; derun?: string } = {},
) {
  return runDerun(["run", "--session-id", id, "--", ...argv], {
    stateRoot,
    cwd: options.cwd,
    env: { LANG: "C.UTF-8" },
    ...(options.derun ? { derun: options.derun } : {}),
  });
}

/** The raw transcript of a session, as derun recorded it. */
export const outputBin = (stateRoot: string, id: string): Buffer => fs.readFileSync(path.join(stateRoot, "sessions", id, "output.bin"));

/** The recorded child PID of a session (meta.json), once it runs. */
export const childPid = (stateRoot: string, id: string): number =>
  JSON.parse(fs.readFileSync(path.join(stateRoot, "sessions", id, "meta.json"), "utf8")).pid;

/** The `derun mcp` started by this test process for `stateRoot`. */
export function serverPid(stateRoot: string): number | undefined {
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const ppid = Number(
        fs
          .readFileSync(`/proc/${name}/stat`, "utf8")
          .replace(/^.*\) /s, "")
          .split(" ")[1],
      );
      if (ppid !== process.pid) continue;
      if (
        fs.readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").includes("mcp") &&
        fs.readFileSync(`/proc/${name}/environ`, "utf8").includes(`DERUN_STATE_ROOT=${stateRoot}\0`)
      )
        return Number(name);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}
