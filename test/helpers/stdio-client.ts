/** The SDK's own Client over real stdio to the derun under test (`derun mcp`), on a given state root. */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { derunArgv, derunEnv, REPO_ROOT } from "./cli.ts";

/**
 * A connected Client; `await using` closes it (and so ends the server). `flags`: after `derun mcp`
 * (a list), or, as an object, more for the server's environment (then `flags` is the third argument).
 */
export async function connectStdio(
  stateRoot: string,
  flagsOrEnv: readonly string[] | Record<string, string> = [],
  moreFlags: readonly string[] = [],
): Promise<Client & AsyncDisposable> {
  const [flags, env] = Array.isArray(flagsOrEnv) ? [flagsOrEnv, {}] : [moreFlags, flagsOrEnv as Record<string, string>];
  const client = new Client({ name: "derun-faults", version: "0" });
  const [command = process.execPath, ...args] = derunArgv();
  await client.connect(
    new StdioClientTransport({ command, args: [...args, "mcp", ...flags], env: derunEnv(stateRoot, env), cwd: REPO_ROOT, stderr: "pipe" }),
  );
  return Object.assign(client, { [Symbol.asyncDispose]: () => client.close() });
}
