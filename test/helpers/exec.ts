/** Running the real CLIs of the MCP config tests: derun, the clients, a shell; bounded in time. */
import { derunEnv } from "./cli.ts";

export interface Ran {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Kills a client that hangs (a login prompt, a network wait) so the test fails instead of timing out. */
const KILL_AFTER_MS = 45_000;

export async function exec(argv: readonly string[], options: { env: Record<string, string>; cwd: string; stdin?: string }): Promise<Ran> {
  const proc = Bun.spawn([...argv], {
    env: options.env,
    cwd: options.cwd,
    stdin: options.stdin === undefined ? "ignore" : new TextEncoder().encode(options.stdin),
    stdout: "pipe",
    stderr: "pipe",
    timeout: KILL_AFTER_MS,
  });
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { exitCode: proc.exitCode, stdout, stderr };
}

/** The line `derun mcp config <client> [--json]` prints, from the derun started by `derun` (argv prefix). */
export async function printedConfig(
  derun: readonly string[],
  client: string,
  stateRoot: string,
  cwd: string,
  json = false,
): Promise<string> {
  const done = await exec([...derun, "mcp", "config", client, ...(json ? ["--json"] : [])], { env: derunEnv(stateRoot), cwd });
  if (done.exitCode !== 0) throw new Error(`derun mcp config ${client} exited ${done.exitCode}: ${done.stderr}`);
  return done.stdout;
}

/** How many times `derun mcp` started with this state root (its log's `mcp_start` records). */
export async function mcpStarts(stateRoot: string): Promise<number> {
  const log = Bun.file(`${stateRoot}/logs/derun.jsonl`);
  if (!(await log.exists())) return 0;
  return (await log.text()).split("\n").filter((line) => line.includes('"event":"mcp_start"')).length;
}
