/** The SDK's own Client over real stdio to the derun under test (`derun mcp`), on a given state root. */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { derunArgv, derunEnv, REPO_ROOT } from "../helpers/cli.ts";

/** A connected Client; `await using` closes it (and so ends the server). `env`: more for the server's environment. */
export async function connectStdio(stateRoot: string, env: Record<string, string> = {}): Promise<Client & AsyncDisposable> {
  const client = new Client({ name: "derun-faults", version: "0" });
  const [command = process.execPath, ...args] = derunArgv();
  await client.connect(
    new StdioClientTransport({ command, args: [...args, "mcp"], env: derunEnv(stateRoot, env), cwd: REPO_ROOT, stderr: "pipe" }),
  );
  return Object.assign(client, { [Symbol.asyncDispose]: () => client.close() });
}
