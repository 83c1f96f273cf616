/**
 * `bun run link`: compiles derun for this machine (scripts/build.ts, dist/derun) and installs that
 * executable as `derun` in a directory on PATH, so that the README's later `derun ...` lines work in
 * the same shell. The binary needs neither Bun nor this checkout afterwards.
 *
 * Where: `--dir <dir>` if given, else the first of ~/.local/bin, ~/bin, /usr/local/bin and the
 * directory holding `bun` that is on PATH and writable (~/.local/bin and ~/bin are created when PATH
 * names them). The last one is where `npm install -g bun` put bun, so on a machine set up by the
 * README's line there is always one. The file is copied then renamed over the old one, so a derun
 * that is running keeps its executable.
 *
 *   bun scripts/link.ts [--dir <dir>]     prints "installed derun <version> as <path>"; exit 1 with why not
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pkg from "../package.json" with { type: "json" };

const ROOT = path.resolve(import.meta.dir, "..");
const EXE = process.platform === "win32" ? "derun.exe" : "derun";

function fail(message: string): never {
  console.error(`link: ${message}`);
  process.exit(1);
}

const pathDirs = (process.env.PATH ?? "")
  .split(path.delimiter)
  .filter((dir) => path.isAbsolute(dir))
  .map((dir) => path.resolve(dir));

/** Writable now, or (under HOME) creatable. */
function usable(dir: string, creatable: boolean): boolean {
  try {
    if (!fs.existsSync(dir) && creatable) fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
    fs.accessSync(dir, fs.constants.W_OK);
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

function chooseDir(given: string | undefined): string {
  if (given !== undefined) {
    const dir = path.resolve(given);
    if (!usable(dir, true)) fail(`cannot write to ${dir}`);
    return dir;
  }
  const home = os.homedir();
  const bun = Bun.which("bun");
  const candidates = [
    { dir: path.join(home, ".local", "bin"), creatable: true },
    { dir: path.join(home, "bin"), creatable: true },
    { dir: "/usr/local/bin", creatable: false },
    ...(bun ? [{ dir: path.dirname(bun), creatable: false }] : []),
  ];
  const found = candidates.find(({ dir, creatable }) => pathDirs.includes(path.resolve(dir)) && usable(dir, creatable));
  if (found) return found.dir;
  return fail(
    `no directory on PATH is writable (tried ${candidates.map(({ dir }) => dir).join(", ")}); run: bun run link --dir <a directory ` +
      `on your PATH>`,
  );
}

const { values } = (() => {
  try {
    return parseArgs({ options: { dir: { type: "string" } }, strict: true });
  } catch (error) {
    return fail(`${error instanceof Error ? error.message : String(error)} (usage: bun run link [--dir <dir>])`);
  }
})();

const dir = chooseDir(values.dir);
const build = Bun.spawnSync([process.execPath, path.join(ROOT, "scripts", "build.ts")], {
  cwd: ROOT,
  stdout: "inherit",
  stderr: "inherit",
});
if (build.exitCode !== 0) fail("the build failed (see above)");
const target = path.join(dir, EXE);
const temp = path.join(dir, `.${EXE}.${process.pid}.tmp`);
try {
  fs.copyFileSync(path.join(ROOT, "dist", EXE), temp);
  fs.chmodSync(temp, 0o755);
  fs.renameSync(temp, target);
} catch (error) {
  fs.rmSync(temp, { force: true });
  fail(`cannot install ${target}: ${error instanceof Error ? error.message : String(error)}`);
}
console.log(`installed derun ${pkg.version} as ${target}${pathDirs.includes(path.resolve(dir)) ? "" : ` (${dir} is not on your PATH)`}`);
