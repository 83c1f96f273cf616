/** Running the real CLIs of the MCP config tests: derun, the clients, a shell; bounded in time. */
import { readdirSync, readFileSync } from "node:fs";
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

/**
 * The `derun mcp` processes started with this state root while `during` runs: found in /proc (their
 * argv holds `mcp`, their environment DERUN_STATE_ROOT=stateRoot), looked for until `during` ends.
 * Not derun's log: a client's health check (initialize, then close) makes derun write nothing.
 */
export async function mcpStartsDuring<T>(stateRoot: string, during: () => Promise<T>): Promise<{ value: T; starts: number }> {
  const seen = new Set<string>();
  const wanted = `DERUN_STATE_ROOT=${stateRoot}`;
  const look = () => {
    for (const pid of readdirSync("/proc")) {
      if (!/^\d+$/.test(pid) || seen.has(pid)) continue;
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
        if (argv.includes("mcp") && readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(wanted)) seen.add(pid);
      } catch {
        // gone meanwhile, or not ours to read
      }
    }
  };
  let done = false;
  const looking = (async () => {
    // Polling a process state: a derun mcp lives far longer (its start alone) than one turn here.
    for (; !done; await Bun.sleep(5)) look();
  })();
  try {
    return { value: await during(), starts: seen.size };
  } finally {
    done = true;
    await looking;
  }
}
