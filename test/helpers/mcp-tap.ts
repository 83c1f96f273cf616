/**
 * A tap between an MCP client and the `derun mcp` it starts, to see which method the client sends
 * first: a shell script the client starts instead of derun, which copies what each side writes into
 * files of a folder (one pair per process the client starts) and passes every byte on unchanged
 * (`tee` on both pipes). The client and derun are the real ones; only the command line differs from
 * what `derun mcp config` prints.
 */
import { chmodSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const SCRIPT = `#!/bin/sh
# $1: the folder for the copies; the rest: the command that serves MCP on stdin/stdout.
dir=$1
shift
name="$dir/$(date +%s%N)-$$"
tee "$name.in" | "$@" | tee "$name.out"
`;

/** One JSON-RPC message as a client or derun wrote it (only the fields looked at). */
export interface Message {
  readonly id?: number | string;
  readonly method?: string;
  readonly result?: unknown;
  readonly error?: { readonly code: number; readonly message: string };
}

/** One process the client started: what it sent, what derun answered, in order. */
export interface Connection {
  readonly sent: readonly Message[];
  readonly answered: readonly Message[];
}

export interface McpTap {
  /** The server entry (`command`, `args`, `env`) a client is given instead of derun's own. */
  entry(derun: readonly string[], stateRoot: string): { command: string; args: string[]; env: Record<string, string> };
  /** Every process started through the tap so far, oldest first. */
  connections(): Connection[];
}

const messages = (file: string): Message[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .slice(0, -1) // a line still being written has no newline yet
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Message);

/** A tap writing into `dir` (which must exist and be the tap's alone). */
export function mcpTap(dir: string): McpTap {
  const script = join(dir, "tap.sh");
  writeFileSync(script, SCRIPT);
  chmodSync(script, 0o755);
  return {
    entry: (derun, stateRoot) => ({
      command: "/bin/sh",
      args: [script, dir, ...derun, "mcp"],
      env: { DERUN_STATE_ROOT: stateRoot },
    }),
    connections: () =>
      readdirSync(dir)
        .filter((name) => name.endsWith(".in"))
        // The names start with the start time in nanoseconds, all of one width for centuries.
        .sort()
        .map((name) => {
          const base = join(dir, name.slice(0, -".in".length));
          return { sent: messages(`${base}.in`), answered: messages(`${base}.out`) };
        }),
  };
}

/** The first request of a connection and derun's answer to it (undefined while none came). */
export function firstExchange(connection: Connection): { method: string; answer: Message | undefined } | undefined {
  const first = connection.sent.find((message) => message.method !== undefined && message.id !== undefined);
  if (!first) return undefined;
  return { method: first.method!, answer: connection.answered.find((message) => message.id === first.id && !message.method) };
}
