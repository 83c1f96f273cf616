/**
 * The derun under test: a compiled binary built from the current source (so a product fix is measured
 * the moment it is made), a private state root per figure, and the environment it runs in.
 */
import * as fs from "node:fs";
import * as path from "node:path";

export const REPO_ROOT = path.resolve(import.meta.dir, "../..");

/** Compiles the current source into `dir` the way releases are built (scripts/build.ts); returns the binary's path. */
export async function buildDerun(dir: string): Promise<string> {
  const build = Bun.spawn([process.execPath, path.join(REPO_ROOT, "scripts/build.ts"), "--outdir", dir], {
    cwd: REPO_ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stderr] = await Promise.all([new Response(build.stderr).text(), build.exited]);
  if (build.exitCode !== 0) throw new Error(`scripts/build.ts failed: ${stderr.trim()}`);
  return path.join(dir, "derun");
}

/** Environment without inherited DERUN_* settings, with a state root of its own. */
export function derunEnv(stateRoot: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith("DERUN_")) env[key] = value;
  }
  return { ...env, NO_COLOR: "1", DERUN_STATE_ROOT: stateRoot };
}

/** A fresh state root under `dir`. */
export function stateRoot(dir: string, name: string): string {
  const root = path.join(dir, `state-${name}`);
  fs.mkdirSync(root, { recursive: true });
  return root;
}

/** Path of a recorded session's transcript. */
export const outputBin = (root: string, sessionId: string): string => path.join(root, "sessions", sessionId, "output.bin");
