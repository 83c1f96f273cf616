/**
 * The README's first minutes, run as its lines say, by a user who is not root (a real second user,
 * made by the test when it runs as root, as CI does), with npm's own global prefix (on Debian's npm,
 * /usr: not writable by that user), in a copy of the checkout (every tracked and new file, as a
 * clone has them), with a fresh HOME and no `bun` or `derun` on PATH: the block after
 * `<!-- test: install -->` and then the one after `<!-- test: first-steps -->`, in one bash. It must
 * end with `derun` on PATH (in ~/.local/bin, which PATH names, as on most desktops) and one recorded
 * session that `derun ls` lists. Run as root, the user's npm and Bun caches are fresh (downloads from
 * the registry); as another user, that user's own caches are used.
 */
import { afterAll, expect, test } from "bun:test";
import { chmodSync, copyFileSync, mkdirSync, statSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { REPO_ROOT, tempDir } from "../helpers/cli.ts";
import { pathWithout } from "../helpers/path-without.ts";

const TIMEOUT = 600_000;
const work = tempDir("derun-readme-install-");
afterAll(() => work[Symbol.dispose]());

/** Who runs the README's lines: a user made for it when the test runs as root, else the one running it. */
const USER = "derun-readme";
const asRoot = process.getuid?.() === 0;

function ensureUser(): void {
  if (Bun.spawnSync(["id", "-u", USER]).exitCode === 0) return;
  const made = Bun.spawnSync(["useradd", "--shell", "/bin/bash", "--no-create-home", USER], { stderr: "pipe" });
  if (made.exitCode !== 0) throw new Error(`useradd: ${made.stderr.toString()}`);
}

/** The shell lines of the fenced block that follows `<!-- test: <name> -->` in the README. */
async function readmeBlock(name: string): Promise<string[]> {
  const readme = await Bun.file(join(REPO_ROOT, "README.md")).text();
  const block = new RegExp(`<!-- test: ${name} -->\\n\`\`\`sh\\n([\\s\\S]*?)\\n\`\`\``).exec(readme)?.[1];
  if (block === undefined) throw new Error(`README.md has no block after <!-- test: ${name} -->`);
  return block.split("\n").filter((line) => line.trim() !== "" && !line.startsWith("#"));
}

/** A checkout as a fresh clone has it: the tracked files and the new ones git does not ignore. */
function copyCheckout(to: string): void {
  const listed = Bun.spawnSync(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: REPO_ROOT });
  for (const file of listed.stdout.toString().split("\0").filter(Boolean)) {
    let mode: number;
    try {
      mode = statSync(join(REPO_ROOT, file)).mode;
    } catch {
      continue; // deleted in the work tree, not yet in git
    }
    mkdirSync(dirname(join(to, file)), { recursive: true });
    copyFileSync(join(REPO_ROOT, file), join(to, file));
    chmodSync(join(to, file), mode & 0o777);
  }
}

test(
  "the README's install line, then its first steps: derun on PATH and a recorded session",
  async () => {
    const install = await readmeBlock("install");
    const firstSteps = await readmeBlock("first-steps");
    expect(firstSteps.length).toBeLessThanOrEqual(3);
    const checkout = join(work.path, "derun");
    const home = join(work.path, "home");
    mkdirSync(home, { recursive: true });
    copyCheckout(checkout);
    // Another user cannot reach root's own tool directories (~/.pyenv, ~/.cargo): the system's only.
    const systemDirs = asRoot ? "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" : process.env.PATH;
    const system = pathWithout(["bun", "bunx", "derun"], join(work.path, "system-bin"), systemDirs);
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env)) {
      if (value !== undefined && !/^(DERUN_|BUN_|XDG_|npm_)/i.test(key)) env[key] = value;
    }
    Object.assign(env, { HOME: home, PATH: [join(home, ".local", "bin"), system].join(delimiter), NO_COLOR: "1" });
    const script = ["set -e", ...install, ...firstSteps, "command -v derun", "derun ls --ids"].join("\n");
    let argv = ["bash", "-c", script];
    if (asRoot) {
      ensureUser();
      // The user reaches its checkout and HOME through the test's private temporary directory.
      chmodSync(work.path, 0o755);
      chmodSync(system, 0o755);
      expect(Bun.spawnSync(["chown", "-R", `${USER}:`, checkout, home]).exitCode).toBe(0);
      argv = ["runuser", "-u", USER, "--", "env", "-i", ...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...argv];
    }
    const proc = Bun.spawn(argv, { cwd: checkout, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    const context = `exit ${code}\nstdout (end): ${stdout.slice(-3000)}\nstderr (end): ${stderr.slice(-3000)}`;
    expect(code, context).toBe(0);
    const derun = join(home, ".local", "bin", "derun");
    expect(stdout, context).toContain(`installed derun`);
    const lines = stdout.trimEnd().split("\n");
    // `derun ls --ids` last: exactly one session, the README's `derun run`; `command -v` just before.
    expect(lines.at(-1), context).toMatch(/^[0-9A-Z]{26}$/);
    expect(lines.at(-2), context).toBe(derun);
    expect(stdout, context).toContain(`${derun} mcp`); // the agent's configuration names the installed binary
    expect(statSync(join(home, ".local", "state", "derun", "sessions", lines.at(-1)!, "final.json")).isFile()).toBe(true);
  },
  TIMEOUT,
);
