/**
 * The compiled derun the ship tests run: DERUN_TEST_BINARY when set (CI builds it first), otherwise
 * built here once per test process with the project's own build script, into a temporary directory
 * that holds nothing else, so the binary is proven to need no file beside it.
 */
import { afterAll, beforeAll } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT, tempDir } from "./cli.ts";

let built: Promise<string> | undefined;

/** Absolute path of the compiled binary; builds it on first use. Throws if the build fails. */
export function compiledBinary(): Promise<string> {
  built ??= (async () => {
    const given = process.env.DERUN_TEST_BINARY;
    if (given) return given;
    const buildDir = mkdtempSync(join(tmpdir(), "derun-ship-bin-"));
    // Every ship test file shares the one binary, so it goes when the test process does.
    process.once("exit", () => rmSync(buildDir, { recursive: true, force: true }));
    const build = Bun.spawn([process.execPath, join(REPO_ROOT, "scripts/build.ts"), "--outdir", buildDir], {
      cwd: REPO_ROOT,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([new Response(build.stdout).text(), new Response(build.stderr).text(), build.exited]);
    const binary = join(buildDir, process.platform === "win32" ? "derun.exe" : "derun");
    if (code !== 0 || !existsSync(binary)) throw new Error(`bun scripts/build.ts failed (${code}): ${stdout}${stderr}`);
    return binary;
  })();
  return built;
}

/**
 * For one ship test file: the compiled binary (resolved before its tests run) with a private state
 * root and working directory, removed after them.
 */
export function shipFixture(prefix: string) {
  const fixture = { state: tempDir(`${prefix}state-`), work: tempDir(`${prefix}work-`), binary: "" };
  beforeAll(async () => {
    fixture.binary = await compiledBinary();
  }, 120_000);
  afterAll(() => {
    fixture.state[Symbol.dispose]();
    fixture.work[Symbol.dispose]();
  });
  return fixture;
}
