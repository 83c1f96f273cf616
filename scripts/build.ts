/**
 * Compiles derun into standalone executables with `bun build --compile`.
 *
 *   bun scripts/build.ts            dist/derun (dist/derun.exe on Windows) for this machine
 *   bun scripts/build.ts --release  dist/derun-<version>-<os>-<arch>[.exe] for every release target,
 *                                   plus dist/SHA256SUMS (the `sha256sum -c` format)
 *   bun scripts/build.ts --target bun-windows-x64
 *                                   dist/derun.exe (dist/derun for the other targets) for that one
 *                                   release target, cross-compiled (the Windows lane under Wine)
 *   --outdir <dir>                  write there instead of dist/ (tests build into a temp dir)
 *
 * The executable ignores bunfig.toml and .env in the user's working directory: derun runs in
 * arbitrary project directories, and a preload script or variables meant for that project must
 * never run inside or steer derun (Bun's default for compiled executables is to load both).
 * Cross-compiling fetches the other platforms' Bun runtimes (`@oven/bun-*` from the npm registry)
 * on first use.
 */
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import platforms from "../bin/platforms.json" with { type: "json" };
import pkg from "../package.json" with { type: "json" };

const ROOT = path.resolve(import.meta.dir, "..");
const ENTRY = path.join(ROOT, "src/cli/index.ts");
/** Worker modules are separate entrypoints: Bun bundles them into the executable only when listed. */
const WORKERS = [
  path.join(ROOT, "src/io/output-writer.worker.ts"),
  path.join(ROOT, "src/io/stream-reader.worker.ts"),
  path.join(ROOT, "src/io/key-relay.worker.ts"),
  path.join(ROOT, "src/plugins/windows-conpty/conpty-io.worker.ts"),
];

/**
 * The SDK's shims (its ajv validator), replaced in the bundle by a stub (./build/sdk-shims-stub.ts
 * says why): the SDK's Server is the only user of the validator, and derun gives it one of its own.
 */
const withoutAjv: Bun.BunPlugin = {
  name: "sdk-without-ajv",
  setup(build) {
    build.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, () => ({
      path: path.join(ROOT, "scripts/build/sdk-shims-stub.ts"),
    }));
  },
};

/**
 * The bytecode's layout, profiled (scripts/bytecode-order.ts writes these): what the common starts
 * use sits together at the front of the executable's bytecode, so a start touches fewer pages.
 * The most common start first; a missing profile is left out (the layout is then Bun's own).
 */
const BYTECODE_ORDER = ["run-pipe.txt", "run-pty.txt", "mcp.txt"]
  .map((name) => path.join(ROOT, "scripts/build/bytecode-order", name))
  .filter((file) => fs.existsSync(file));

/** Release targets: Bun's compile target and the artifact's platform suffix (bin/platforms.json, shared with npm's packages). */
const RELEASE_TARGETS = Object.values(platforms).map(({ name, target }) => ({
  target: target as Bun.Build.CompileTarget,
  suffix: name.replace(/^derun-/, ""),
}));

/** Compiles one executable; throws with Bun's own messages (and what to check) on failure. */
async function compile(outfile: string, target?: Bun.Build.CompileTarget): Promise<void> {
  const result = await Bun.build({
    entrypoints: [ENTRY, ...WORKERS],
    compile: {
      outfile,
      autoloadBunfig: false,
      autoloadDotenv: false,
      ...(target ? { target } : {}),
      ...(BYTECODE_ORDER.length > 0 ? { bytecodeOrder: BYTECODE_ORDER } : {}),
    },
    // Flat names: each worker lands next to the entry, where `new URL("./x.worker.ts", import.meta.url)`
    // points (with the tree's names it would sit under recorder/ and never be found).
    naming: { entry: "[name].[ext]" },
    // Bytecode: the runtime skips parsing the bundle at every start (measured: `derun run -- true`
    // 50 ms -> 20 ms). Bytecode requires ESM output here (top-level await in the entry).
    bytecode: true,
    // Chunks: `derun run` then never loads the MCP server's code (the SDK, zod, arktype: 840 of the
    // bundle's 1000 KB), which every start paid for even unevaluated (`derun run -- true` 14.1 -> 12.0 ms).
    splitting: true,
    format: "esm",
    minify: true,
    sourcemap: "none",
    plugins: [withoutAjv],
    throw: false,
  });
  if (result.success) return;
  const reasons = result.logs.map((log) => String(log.message ?? log)).join("; ");
  const hint = target ? ` (cross-compiling needs the npm registry to fetch the ${target} runtime)` : "";
  throw new Error(`compiling ${target ?? "for this machine"} failed${hint}: ${reasons}`);
}

async function sha256(file: string): Promise<string> {
  return new Bun.CryptoHasher("sha256").update(await Bun.file(file).arrayBuffer()).digest("hex");
}

async function buildLocal(outdir: string, known?: (typeof RELEASE_TARGETS)[number]): Promise<void> {
  const windows = known ? known.suffix.startsWith("windows") : process.platform === "win32";
  const outfile = path.join(outdir, windows ? "derun.exe" : "derun");
  await compile(outfile, known?.target);
  console.log(`built ${outfile}`);
}

async function buildRelease(outdir: string): Promise<void> {
  const sums: string[] = [];
  for (const { target, suffix } of RELEASE_TARGETS) {
    const name = `derun-${pkg.version}-${suffix}${suffix.startsWith("windows") ? ".exe" : ""}`;
    const outfile = path.join(outdir, name);
    await compile(outfile, target);
    sums.push(`${await sha256(outfile)}  ${name}\n`);
    console.log(`built ${outfile}`);
  }
  fs.writeFileSync(path.join(outdir, "SHA256SUMS"), sums.join(""));
  console.log(`wrote ${path.join(outdir, "SHA256SUMS")}`);
}

const { values, positionals } = (() => {
  try {
    return parseArgs({
      options: { release: { type: "boolean" }, target: { type: "string" }, outdir: { type: "string" } },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    console.error(
      `build: ${error instanceof Error ? error.message : String(error)} (usage: bun scripts/build.ts [--release | --target ` +
        `<bun-target>] [--outdir <dir>])`,
    );
    process.exit(2);
  }
})();
const usage = "(usage: bun scripts/build.ts [--release | --target <bun-target>] [--outdir <dir>])";
const usageError = (problem: string): never => {
  console.error(`build: ${problem} ${usage}`);
  process.exit(2);
};
if (positionals.length > 0) usageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
if (values.release && values.target !== undefined) usageError("--release builds every target; give --target alone for one");
const target = RELEASE_TARGETS.find((release) => release.target === values.target);
if (values.target !== undefined && !target)
  usageError(`unknown --target ${values.target} (one of ${RELEASE_TARGETS.map((release) => release.target).join(", ")})`);
const outdir = path.resolve(values.outdir ?? path.join(ROOT, "dist"));
fs.mkdirSync(outdir, { recursive: true });
try {
  await (values.release ? buildRelease(outdir) : buildLocal(outdir, target));
} catch (error) {
  console.error(`build: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
