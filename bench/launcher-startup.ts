/**
 * Start-up through npm's launcher (bin/derun.js, under Node, as `npm install -g derun` runs it)
 * beside the bare compiled binary: `derun run -- true` in pipe mode, stdin /dev/null, stdout and
 * stderr pipes, spawn to exit and EOF. The launcher and the binary sit in an npm layout of their own
 * (node_modules/derun and node_modules/derun-<platform>), so the launcher finds the binary as it
 * would once installed. Also under Bun (`bunx derun`), which replaces itself with the binary.
 * Reported, with no target: what an npm user pays over the standalone binary.
 */
import * as fs from "node:fs";
import path from "node:path";
import platforms from "../bin/platforms.json" with { type: "json" };
import type { BenchContext } from "./lib/context.ts";
import { derunEnv, stateRoot } from "./lib/derun.ts";
import { interleave } from "./lib/interleave.ts";
import type { Figure } from "./lib/report.ts";
import { pairRatios, summarize } from "./lib/stats.ts";

const REPO = path.resolve(import.meta.dir, "..");

/** node_modules/derun/bin/{derun.js,platforms.json} and node_modules/<platform>/bin/<exe> -> the binary. */
function npmLayout(ctx: BenchContext): string {
  const platform = (platforms as Record<string, { name: string; exe: string }>)[`${process.platform}-${process.arch}`];
  if (!platform) throw new Error(`no platform package for ${process.platform}-${process.arch}`);
  const modules = path.join(ctx.dir, "launcher", "node_modules");
  fs.mkdirSync(path.join(modules, "derun", "bin"), { recursive: true });
  fs.mkdirSync(path.join(modules, platform.name, "bin"), { recursive: true });
  for (const file of ["derun.js", "platforms.json"])
    fs.copyFileSync(path.join(REPO, "bin", file), path.join(modules, "derun", "bin", file));
  fs.writeFileSync(path.join(modules, "derun", "package.json"), JSON.stringify({ name: "derun", type: "module" }));
  fs.writeFileSync(path.join(modules, platform.name, "package.json"), JSON.stringify({ name: platform.name }));
  fs.symlinkSync(ctx.derun, path.join(modules, platform.name, "bin", platform.exe));
  return path.join(modules, "derun", "bin", "derun.js");
}

async function timeInPipes(what: string, argv: string[], env: Record<string, string>): Promise<number> {
  const started = performance.now();
  const proc = Bun.spawn(argv, { env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const wallMs = performance.now() - started;
  if (proc.exitCode !== 0 || stdout !== "" || stderr !== "") throw new Error(`${what} exited ${proc.exitCode}: ${stdout}${stderr}`);
  return wallMs;
}

export async function launcherStartup(ctx: BenchContext): Promise<Figure[]> {
  const node = Bun.which("node");
  const launcher = npmLayout(ctx);
  const reps = ctx.quick ? 5 : 30;
  const root = stateRoot(ctx.dir, "launcher-startup");
  const env = derunEnv(root);
  let run = 0;
  const argv = () => ["run", "--session-id", `launcher-${run++}`, "--", "true"];
  ctx.progress(`start-up through the npm launcher: x ${reps}`);
  const sides: Record<string, () => Promise<number>> = {
    binary: () => timeInPipes("derun run -- true", [ctx.derun, ...argv()], env),
    bun: () => timeInPipes("bun bin/derun.js run -- true", [process.execPath, launcher, ...argv()], env),
    ...(node ? { node: () => timeInPipes("node bin/derun.js run -- true", [node, launcher, ...argv()], env) } : {}),
  };
  const samples = await interleave(reps, sides);
  const row = (name: string, side: string): Figure => ({
    name,
    unit: "ms",
    derun: summarize(samples[side]!),
    anchor: { name: "the binary itself", summary: summarize(samples.binary!) },
    ratio: summarize(pairRatios(samples[side]!, samples.binary!)),
    target: "report",
    notes:
      `derun run -- true in pipe mode through bin/derun.js in an npm layout, against the compiled binary run directly; ${reps} ` +
      `interleaved reps`,
  });
  return [...(node ? [row("start-up via npm launcher (node)", "node")] : []), row("start-up via npm launcher (bun)", "bun")];
}
