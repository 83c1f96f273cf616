#!/usr/bin/env node
/**
 * derun's npm entry: runs under Node or Bun and starts the compiled derun of the platform package
 * npm chose by `os`/`cpu` (optionalDependencies, as esbuild and Biome ship theirs), so npm users
 * need no Bun. It replaces itself with the binary (process.execve: Bun, Node >= 22.15), so there is
 * no second process; on older Node it waits for the binary as a child and ends as it ended.
 * Where no binary fits: under Bun it runs derun's TypeScript source in this process, under Node
 * with `bun` on PATH it starts that, otherwise it says in one line what to install (exit 1).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const source = join(here, "..", "src", "cli", "index.ts");
const args = process.argv.slice(2);
const key = `${process.platform}-${process.arch}`;
const require = createRequire(import.meta.url);
/** By Node's platform-arch: the package with the binary (bin/platforms.json, also read by scripts/pack.ts). */
const platform = require("./platforms.json")[key];

/** The platform package's binary, when npm installed it (beside this package, or below it). */
function compiled() {
  if (platform === undefined) return undefined;
  try {
    const manifest = require.resolve(`${platform.name}/package.json`);
    const file = join(dirname(manifest), "bin", platform.exe);
    return existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}

function fail(message) {
  process.stderr.write(`derun: ${message}\n`);
  process.exit(1);
}

/** Becomes `file` (same pid) where the runtime can; otherwise runs it as a child and mirrors its end. */
function run(file, argv) {
  if (typeof process.execve === "function" && process.platform !== "win32") {
    try {
      process.execve(file, [file, ...argv], process.env);
    } catch (error) {
      fail(`cannot start ${file}: ${error && error.message ? error.message : error}`);
    }
  }
  const child = spawn(file, argv, { stdio: "inherit" });
  // Keys reach the child from the terminal itself (same process group): this process must not die
  // of them first. Signals sent to this pid alone are passed on.
  for (const signal of ["SIGINT", "SIGQUIT"]) process.on(signal, () => {});
  for (const signal of ["SIGTERM", "SIGHUP", "SIGUSR1", "SIGUSR2", "SIGALRM"]) process.on(signal, () => child.kill(signal));
  child.on("error", (error) => fail(`cannot start ${file}: ${error.message}`));
  child.on("exit", (code, signal) => {
    if (signal === null) process.exit(code ?? 1);
    for (const name of ["SIGINT", "SIGQUIT", "SIGTERM", "SIGHUP", "SIGUSR1", "SIGUSR2", "SIGALRM"]) process.removeAllListeners(name);
    process.kill(process.pid, signal);
  });
}

const binary = compiled();
if (binary !== undefined) run(binary, args);
else if (process.versions.bun !== undefined && existsSync(source)) await import(source);
else {
  const bun = process.platform === "win32" ? undefined : whichBun();
  if (bun !== undefined && existsSync(source)) run(bun, [source, ...args]);
  else {
    fail(missingBinary());
  }
}

/**
 * What to do when no binary fits, said for the case at hand: a platform derun has no binary for
 * needs Bun; a platform package left out is installed beside derun, from the registry or, for
 * tarballs (`bun run pack`), the two together in one npm install.
 */
function missingBinary() {
  const bun = "install Bun (https://bun.sh, or npm install -g --prefix ~/.local bun) to run derun from source";
  if (platform === undefined) return `derun has no compiled binary for ${key}, and Bun is not on PATH: ${bun}`;
  const version = require("../package.json").version;
  return (
    `the package ${platform.name} (derun's binary for ${key}) is not installed, and Bun is not on PATH to run derun from source: ` +
    `install it beside derun (npm install -g ${platform.name}@${version}; from tarballs, both in one command: ` +
    `npm install -g ./derun-${version}.tgz ./${platform.name}-${version}.tgz), or ${bun}`
  );
}

function whichBun() {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (dir !== "" && existsSync(join(dir, "bun"))) return join(dir, "bun");
  }
  return undefined;
}
