/**
 * The release's dry run: `npm publish --dry-run` (no login needed; `--force` so that the check does
 * not depend on which versions the registry already has) and `bun pm pack --dry-run`, whose file
 * lists must both be exactly the package's expected files: every tracked file under src/ and bin/
 * (the launcher) and package.json, README.md, LICENSE. So a test, a script or a stray local file that must not ship
 * fails here, and so does a source file that would be missing. Also checks that `bin`, `exports`
 * and every relative import in a shipped file point at shipped files (a module under src/ that
 * imports from test/ would break only once installed), and that the bin starts with Node's shebang
 * (the launcher runs under Node or Bun). The release publishes what `bun scripts/pack.ts --all`
 * makes of these files: the same list, with the platform packages as optional dependencies.
 *
 *   bun scripts/check-package.ts     prints one summary line; exit 1 with the differences
 */
import path from "node:path";
import pkg from "../package.json" with { type: "json" };

const ROOT = path.resolve(import.meta.dir, "..");
const ALWAYS = ["LICENSE", "README.md", "package.json"];

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn(argv, { cwd: ROOT, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

function fail(message: string): never {
  console.error(`check-package: ${message}`);
  process.exit(1);
}

async function expectedFiles(): Promise<string[]> {
  const tracked = await run(["git", "ls-files", "-z", "--", "src", "bin"]);
  if (tracked.code !== 0) fail(`git ls-files failed: ${tracked.stderr.trim()}`);
  return [...ALWAYS, ...tracked.stdout.split("\0").filter(Boolean)].sort();
}

/** What npm would publish. npm 11 answers `{ "<name>": { files } }`, npm 10 `{ files }`. */
async function npmFiles(): Promise<string[]> {
  const dry = await run(["npm", "publish", "--dry-run", "--force", "--access", "public", "--json"]);
  if (dry.code !== 0) fail(`npm publish --dry-run failed (${dry.code}): ${dry.stderr.trim().split("\n").slice(-3).join(" / ")}`);
  const answer = JSON.parse(dry.stdout) as Record<string, { files?: { path: string }[] }> & { files?: { path: string }[] };
  const files = answer.files ?? answer[pkg.name]?.files;
  if (!files) fail(`npm publish --dry-run --json gave no file list: ${dry.stdout.slice(0, 200)}`);
  return files.map((file) => file.path).sort();
}

/** What `bun pm pack` (the tarball the tests install) holds. */
async function bunFiles(): Promise<string[]> {
  const dry = await run([process.execPath, "pm", "pack", "--dry-run"]);
  if (dry.code !== 0) fail(`bun pm pack --dry-run failed (${dry.code}): ${dry.stderr.trim()}`);
  return [...dry.stdout.matchAll(/^packed \S+ (.+)$/gm)].map((match) => match[1]!).sort();
}

function differences(label: string, got: readonly string[], expected: readonly string[]): string[] {
  const extra = got.filter((file) => !expected.includes(file)).map((file) => `${label} ships ${file}, which it must not`);
  const missing = expected.filter((file) => !got.includes(file)).map((file) => `${label} lacks ${file}`);
  return [...extra, ...missing];
}

const [expected, fromNpm, fromBun] = await Promise.all([expectedFiles(), npmFiles(), bunFiles()]);
const problems = [...differences("npm publish", fromNpm, expected), ...differences("bun pm pack", fromBun, expected)];

const targets = [...Object.values(pkg.bin), ...Object.values(pkg.exports)].map((target) => target.replace(/^\.\//, ""));
for (const target of targets) if (!expected.includes(target)) problems.push(`package.json points at ${target}, which is not shipped`);
for (const bin of Object.values(pkg.bin)) {
  const head = (await Bun.file(path.join(ROOT, bin)).text()).split("\n")[0];
  if (head !== "#!/usr/bin/env node") problems.push(`bin ${bin} starts with ${JSON.stringify(head)}, not #!/usr/bin/env node`);
}

/** Relative specifiers of static and dynamic imports and `new URL("./x", import.meta.url)`. */
const RELATIVE = /(?:\bfrom\s*|\bimport\s*\(\s*|\bnew URL\(\s*)"(\.{1,2}\/[^"]+)"/g;
for (const file of expected.filter((name) => /\.(ts|js)$/.test(name))) {
  const source = await Bun.file(path.join(ROOT, file)).text();
  for (const [, specifier] of source.matchAll(RELATIVE)) {
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier!));
    if (!expected.includes(target)) problems.push(`${file} imports ${specifier}, which is not shipped`);
  }
}

if (problems.length > 0) fail(`${problems.length} problem(s):\n  ${problems.join("\n  ")}`);
console.log(`package ${pkg.name}@${pkg.version}: npm publish --dry-run and bun pm pack both ship the expected ${expected.length} files`);
