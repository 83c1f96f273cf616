/**
 * `bun run pack`: the npm tarballs, into dist/npm/.
 *
 *   derun-<version>.tgz               the main package: the launcher (bin/derun.js, Node or Bun), the
 *                                     TypeScript source (derun/plugin, and derun itself under Bun where
 *                                     no binary fits), and one optional dependency per platform
 *   derun-<os>-<cpu>-<version>.tgz    a platform package: the compiled binary, `os`/`cpu` set so that
 *                                     npm, Bun and pnpm install only the one that fits
 *
 * This machine's platform package only, or every release target with `--all` (cross-compiled, for
 * the release job). The repository's own package.json stays without those optional dependencies, so
 * that `bun install` in a checkout never asks the registry for them.
 *
 *   bun scripts/pack.ts [--all] [--outdir <dir>]     prints each tarball's path
 */
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import platforms from "../bin/platforms.json" with { type: "json" };
import pkg from "../package.json" with { type: "json" };

const ROOT = path.resolve(import.meta.dir, "..");
type Platform = (typeof platforms)[keyof typeof platforms];

function fail(message: string): never {
  console.error(`pack: ${message}`);
  process.exit(1);
}

function run(argv: string[], cwd: string): string {
  const done = Bun.spawnSync(argv, { cwd, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  if (done.exitCode !== 0) fail(`${argv.slice(0, 3).join(" ")} failed (${done.exitCode}): ${done.stderr.toString().trim()}`);
  return done.stdout.toString();
}

/** `bun pm pack` in `dir`; the tarball's path. */
function pack(dir: string, outdir: string): string {
  const before = new Set(fs.readdirSync(outdir));
  run([process.execPath, "pm", "pack", "--destination", outdir, "--quiet"], dir);
  const made = fs.readdirSync(outdir).filter((name) => name.endsWith(".tgz") && !before.has(name));
  if (made.length !== 1) fail(`bun pm pack in ${dir} made ${made.length} tarballs`);
  return path.join(outdir, made[0]!);
}

function writeJson(file: string, value: unknown): void {
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

function stageMain(dir: string): void {
  const files = run(["git", "ls-files", "-z", "--", "src", "bin"], ROOT).split("\0").filter(Boolean);
  for (const file of [...files, "README.md", "LICENSE"]) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, file), path.join(dir, file));
  }
  const { scripts: _scripts, devDependencies: _dev, packageManager: _pm, ...manifest } = pkg as typeof pkg & Record<string, unknown>;
  const binaries = Object.fromEntries(Object.values(platforms).map(({ name }) => [name, pkg.version]));
  writeJson(path.join(dir, "package.json"), {
    ...manifest,
    optionalDependencies: { ...(manifest.optionalDependencies as Record<string, string> | undefined), ...binaries },
  });
}

function stagePlatform(dir: string, platform: Platform, binary: string): void {
  fs.mkdirSync(path.join(dir, "bin"), { recursive: true });
  fs.copyFileSync(binary, path.join(dir, "bin", platform.exe));
  fs.chmodSync(path.join(dir, "bin", platform.exe), 0o755);
  fs.copyFileSync(path.join(ROOT, "LICENSE"), path.join(dir, "LICENSE"));
  fs.writeFileSync(
    path.join(dir, "README.md"),
    `# ${platform.name}\n\nThe compiled [derun](https://www.npmjs.com/package/derun) for ${platform.os} ${platform.cpu}. Install ` +
      `\`derun\`, not this package: npm picks this one for you.\n`,
  );
  writeJson(path.join(dir, "package.json"), {
    name: platform.name,
    version: pkg.version,
    description: `derun's compiled binary for ${platform.os} ${platform.cpu} (installed by the derun package)`,
    license: pkg.license,
    repository: pkg.repository,
    os: [platform.os],
    cpu: [platform.cpu],
    files: ["bin"],
    preferUnplugged: true,
  });
}

const { values } = (() => {
  try {
    return parseArgs({ options: { all: { type: "boolean" }, outdir: { type: "string" } }, strict: true });
  } catch (error) {
    return fail(`${error instanceof Error ? error.message : String(error)} (usage: bun scripts/pack.ts [--all] [--outdir <dir>])`);
  }
})();
const outdir = path.resolve(values.outdir ?? path.join(ROOT, "dist", "npm"));
fs.mkdirSync(outdir, { recursive: true });
for (const old of fs.readdirSync(outdir).filter((name) => name.startsWith("derun-") && name.endsWith(".tgz")))
  fs.rmSync(path.join(outdir, old));
const stage = fs.mkdtempSync(path.join(outdir, ".stage-"));
try {
  const here = (platforms as Record<string, Platform>)[`${process.platform}-${process.arch}`];
  const wanted = values.all ? Object.values(platforms) : here ? [here] : fail(`no release target for ${process.platform}-${process.arch}`);
  const built = path.join(stage, "built");
  run([process.execPath, path.join(ROOT, "scripts", "build.ts"), ...(values.all ? ["--release"] : []), "--outdir", built], ROOT);
  const binaryOf = (platform: Platform) =>
    values.all
      ? path.join(built, `derun-${pkg.version}-${platform.name.replace(/^derun-/, "")}${platform.exe.endsWith(".exe") ? ".exe" : ""}`)
      : path.join(built, platform.exe);
  for (const platform of wanted) {
    const dir = path.join(stage, platform.name);
    stagePlatform(dir, platform, binaryOf(platform));
    console.log(pack(dir, outdir));
  }
  stageMain(path.join(stage, "derun"));
  console.log(pack(path.join(stage, "derun"), outdir));
} finally {
  fs.rmSync(stage, { recursive: true, force: true });
}
