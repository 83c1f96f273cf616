/**
 * The Windows lane's harness: the real cross-compiled derun.exe run under Wine (docs/windows.md),
 * or, on Windows itself (the release workflow's Windows job), run directly.
 *
 * - Without `wine` on PATH (and not on Windows) every Windows test skips, its suite's name saying
 *   why (.ci/run installs Wine, so in CI they run). With Wine present, a prefix that cannot be
 *   made is a failure.
 * - The binary is DERUN_WINDOWS_BINARY (.ci/run builds dist/derun.exe first), else one built here
 *   once per test process (scripts/build.ts --target bun-windows-x64, a few seconds).
 * - Every call runs under a timeout, stdin from a file: a Linux pipe as a Windows std handle fails
 *   in any Bun program under Wine.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { derunEnv, REPO_ROOT, type Completed } from "../helpers/cli.ts";

/** On Windows itself: derun.exe runs without Wine. */
export const nativeWindows = process.platform === "win32";

/** Why the Windows tests cannot run here, or undefined when they can. */
export const wineMissing: string | undefined = nativeWindows
  ? undefined
  : Bun.which("wine") === null
    ? "wine is not installed (bash scripts/wine-setup.sh installs it; .ci/run does)"
    : // In a process of their own: in the same process as the whole suite, a child's exit was once
      // never seen by Bun (a run hung in the lane's set-up, with no child left), so the lane is a
      // step of .ci/run that sets DERUN_WINDOWS_LANE=1.
      process.env.DERUN_WINDOWS_LANE !== "1"
      ? "the Windows lane runs alone: DERUN_WINDOWS_LANE=1 bun test test/windows (a step of .ci/run)"
      : undefined;

/** A suite name that says, when skipped, why. */
export const suiteName = (name: string): string => (wineMissing ? `${name} [skipped: ${wineMissing}]` : name);

/** One call's bound: Wine on a loaded machine can take several seconds just to start a process. */
export const WINE_TIMEOUT_MS = 120_000;

/** One test's bound (`bun test --timeout 60000` is too short for a few Wine calls on a loaded machine). */
export const WINE_TEST_TIMEOUT_MS = 400_000;

interface Lane {
  readonly prefix: string;
  readonly exe: string;
}

let lane: Promise<Lane> | undefined;

/** The Wine prefix (made or reused by scripts/wine-setup.sh) and derun.exe; once per process. */
export const setUpLane = (): Promise<Lane> => (lane ??= makeLane());

async function makeLane(): Promise<Lane> {
  if (nativeWindows) return { prefix: "", exe: process.env.DERUN_WINDOWS_BINARY ?? (await buildExe()) };
  const setup = Bun.spawnSync(["bash", join(REPO_ROOT, "scripts/wine-setup.sh")], { stdout: "pipe", stderr: "pipe", timeout: 600_000 });
  const lines = setup.stdout.toString().trim().split("\n");
  if (setup.exitCode !== 0) throw new Error(`scripts/wine-setup.sh failed (${setup.exitCode}): ${setup.stderr.toString().slice(-2000)}`);
  const prefix = lines.at(-1)!;
  const exe = process.env.DERUN_WINDOWS_BINARY ?? (await buildExe());
  // A wineserver kept up between calls (30 s after the last): without it each call pays for starting one.
  // Not waited for: it forks into the background, and nothing here depends on it being up.
  Bun.spawn(["wineserver", "-p30"], { env: wineEnv(prefix), stdio: ["ignore", "ignore", "ignore"] }).unref(); // "-p 30" would mean forever
  return { prefix, exe };
}

async function buildExe(): Promise<string> {
  const outdir = mkdtempSync(join(tmpdir(), "derun-exe-"));
  const build = Bun.spawn([process.execPath, join(REPO_ROOT, "scripts/build.ts"), "--target", "bun-windows-x64", "--outdir", outdir], {
    stdout: "pipe",
    stderr: "pipe",
  });
  if ((await build.exited) !== 0) throw new Error(`building derun.exe failed: ${await new Response(build.stderr).text()}`);
  return join(outdir, "derun.exe");
}

/** Wine's own variables: the prefix, no debug chatter, no Mono/Gecko installers, no display. */
function wineEnv(prefix: string, base: Record<string, string | undefined> = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base))
    if (value !== undefined && key !== "DISPLAY" && key !== "WAYLAND_DISPLAY") env[key] = value;
  return { ...env, WINEPREFIX: prefix, WINEDEBUG: "-all", WINEARCH: "win64", WINEDLLOVERRIDES: "mscoree=;mshtml=" };
}

/** A Linux path as Wine's Z: drive shows it to a Windows program (on Windows: the path itself). */
export const windowsPath = (linuxPath: string): string => (nativeWindows ? linuxPath : `Z:${linuxPath.replaceAll("/", "\\")}`);

/** argv and environment that start derun.exe (through Wine unless on Windows), with `env` for derun. */
function launch({ prefix, exe }: Lane, env: Record<string, string>): { argv: string[]; env: Record<string, string> } {
  return nativeWindows ? { argv: [exe], env } : { argv: ["wine", exe], env: wineEnv(prefix, env) };
}

/** A file holding `content`, to be a Windows program's stdin. */
export function stdinFile(content: string | Uint8Array = ""): string {
  const file = join(mkdtempSync(join(tmpdir(), "derun-stdin-")), "stdin");
  writeFileSync(file, content);
  return file;
}

export interface WineCall {
  /** The state root, as a Linux path (handed to derun.exe as its Z: path); undefined: derun's default. */
  readonly stateRoot: string | undefined;
  /** A file for stdin (default: an empty one). */
  readonly stdin?: string;
  readonly timeoutMs?: number;
  /** More variables for derun. */
  readonly env?: Record<string, string>;
}

/** `wine derun.exe ...args`, collected; a call that outlives its timeout is killed and says so. */
export async function runWine(args: readonly string[], call: WineCall): Promise<Completed & { timedOut: boolean }> {
  const derunVariables = derunEnv(windowsPath(call.stateRoot ?? ""), call.env);
  if (call.stateRoot === undefined) delete derunVariables.DERUN_STATE_ROOT;
  const { argv, env } = launch(await setUpLane(), derunVariables);
  const timeoutMs = call.timeoutMs ?? WINE_TIMEOUT_MS;
  const proc = Bun.spawn([...argv, ...args], {
    env,
    stdin: Bun.file(call.stdin ?? stdinFile()),
    stdout: "pipe",
    stderr: "pipe",
    timeout: timeoutMs,
    killSignal: "SIGKILL",
  });
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).bytes(), new Response(proc.stderr).bytes(), proc.exited]);
  return {
    exitCode: proc.exitCode,
    signalCode: proc.signalCode as NodeJS.Signals | null,
    stdout,
    stderr,
    timedOut: proc.signalCode === "SIGKILL",
  };
}

/** argv and environment for starting derun.exe some other way (in a PTY): prefix and state root set. */
export async function wineCommand(stateRoot: string): Promise<{ argv: string[]; env: Record<string, string> }> {
  return launch(await setUpLane(), derunEnv(windowsPath(stateRoot)));
}

/** The Wine prefix's directory (for files a Windows program put under C:), undefined on Windows. */
export async function winePrefix(): Promise<string | undefined> {
  return nativeWindows ? undefined : (await setUpLane()).prefix;
}
