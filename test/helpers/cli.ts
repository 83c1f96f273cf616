/**
 * Spawning the real derun CLI in tests: from source (bun + src/cli/index.ts) by default, or a
 * compiled binary when DERUN_TEST_BINARY is set, always with a private state root.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const REPO_ROOT = resolve(import.meta.dir, "../..");
export const CLI_ENTRY = join(REPO_ROOT, "src/cli/index.ts");

/** argv prefix that starts derun. */
export function derunArgv(): string[] {
  const binary = process.env.DERUN_TEST_BINARY;
  return binary ? [binary] : [process.execPath, CLI_ENTRY];
}

/** `word` as one shell word (single-quoted). */
export const shellQuote = (word: string): string => `'${word.replaceAll("'", "'\\''")}'`;

/** The command line that starts derun (see {@link derunArgv}), for a shell script. */
export const derunShell = (): string => derunArgv().map(shellQuote).join(" ");

/** A temporary directory removed by the returned dispose function (or `using`). */
export function tempDir(prefix = "derun-test-"): { path: string } & Disposable {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, [Symbol.dispose]: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * The reader Worker for every derun under test unless a test says otherwise: CI's second lane of the
 * terminal's tests sets DERUN_TEST_READER_WORKER=1, so that the Worker (the reader wherever the
 * native pump cannot run) stays tested on a machine where the pump is the default.
 */
export const forcedReaderWorker = (): Record<string, string> =>
  process.env.DERUN_TEST_READER_WORKER === "1" ? { DERUN_NATIVE_PUMP: "0" } : {};

/** Environment for a derun under test: a private state root, no colour, nothing inherited that steers derun. */
export function derunEnv(stateRoot: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith("DERUN_")) env[key] = value;
  }
  return { ...env, NO_COLOR: "1", DERUN_STATE_ROOT: stateRoot, ...forcedReaderWorker(), ...extra };
}

export interface Completed {
  readonly exitCode: number | null;
  readonly signalCode: NodeJS.Signals | null;
  readonly stdout: Uint8Array;
  readonly stderr: Uint8Array;
}

/** Run derun with pipes (so it chooses the pipe transport) and collect everything. */
export async function runDerun(
  args: readonly string[],
  options: {
    stateRoot: string;
    env?: Record<string, string>;
    stdin?: "ignore" | Blob | Uint8Array | "inherit";
    cwd?: string;
    /** argv run in front of derun (e.g. a shell setting resource limits, then `exec "$@"`). */
    wrap?: readonly string[];
    /** A derun binary to run instead of {@link derunArgv}'s. */
    derun?: string;
  },
): Promise<Completed> {
  const derun = options.derun === undefined ? derunArgv() : [options.derun];
  const proc = Bun.spawn([...(options.wrap ?? []), ...derun, ...args], {
    env: derunEnv(options.stateRoot, options.env),
    stdin: options.stdin ?? "ignore",
    stdout: "pipe",
    stderr: "pipe",
    cwd: options.cwd ?? REPO_ROOT,
  });
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).bytes(), new Response(proc.stderr).bytes(), proc.exited]);
  return { exitCode: proc.exitCode, signalCode: proc.signalCode as NodeJS.Signals | null, stdout, stderr };
}

export { randomBytes } from "node:crypto";

export const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
export const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
