/**
 * A terminal transport that cannot open here (no PTY) gives way to pipe, whose child inherits
 * derun's terminal: that child finds the user's terminal modes from its start (not derun's raw
 * mode) and the keys typed before derun started (derun has not taken them from the terminal).
 * Once the command has ended, one line on derun's stderr says it fell back, and why.
 * A real PTY as the user's terminal; a plugin transport that fails as a PTY shortage would.
 */
import { expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { derunArgv, derunEnv, REPO_ROOT, runDerun, tempDir, text } from "../helpers/cli.ts";
import { onlySession } from "../helpers/session.ts";
import { spawnInPty } from "../helpers/pty.ts";

const PLUGIN = `import { defineTransport } from ${JSON.stringify(join(REPO_ROOT, "src/plugin-api/index.ts"))};
export default defineTransport({
  meta: { name: "no-pty", description: "a terminal transport that finds no PTY" },
  capabilities: { tty: true, resize: true, signals: true, input: "forward" },
  supports: () => true,
  open: async () => {
    throw new Error("no PTY available");
  },
});
`;

/** Its modes first thing, then a line read from the terminal. */
const COMMAND = ["sh", "-c", 'stty -g; read line; echo "got [$line]"'];

test.skipIf(process.platform === "win32")(
  "the fallback's child starts on the user's terminal modes and reads the keys typed before derun started",
  async () => {
    using dir = tempDir("derun-pty-fallback-");
    const plugin = join(dir.path, "no-pty.ts");
    writeFileSync(plugin, PLUGIN);
    const env = derunEnv(join(dir.path, "state"));
    const outputs: string[] = [];
    for (const argv of [[...derunArgv(), "run", "--transport", plugin, "--", ...COMMAND], COMMAND]) {
      const run = spawnInPty(argv, { env, cols: 100, rows: 30, cwd: REPO_ROOT });
      // At once: long before derun could take the terminal over.
      run.type("typed-ahead\r");
      await run.waitFor((out) => out.includes("got ["), "the line read");
      expect((await run.exited).exitCode).toBe(0);
      outputs.push(text(run.output()));
    }
    const [withNotice, bare] = outputs as [string, string];
    // The fallback is told on derun's stderr, one line, after everything the command wrote.
    const notice = /derun: transport no-pty could not start \([^\n]*no PTY available\); the command ran through pipe\r\n$/;
    expect(withNotice).toMatch(notice);
    expect(withNotice.indexOf("derun:")).toBeGreaterThan(withNotice.indexOf("got [typed-ahead]"));
    const viaDerun = withNotice.replace(notice, "");
    expect(viaDerun).toContain("got [typed-ahead]");
    // The same lines: the modes, the terminal's echo of the typed line, what was read. Where the
    // echo lands beside the modes' line depends on when the keys came, with or without derun.
    const lines = (out: string) => out.split(/\r?\n/).sort();
    expect(lines(viaDerun)).toEqual(lines(bare));
    expect(onlySession(join(dir.path, "state")).meta).toMatchObject({ transport_mode: "pipe" });
  },
  60_000,
);

/** A terminal transport that starts the command (it hands over its first output) and then fails. */
const FAILS_LATE = `import { defineTransport } from ${JSON.stringify(join(REPO_ROOT, "src/plugin-api/index.ts"))};
export default defineTransport({
  meta: { name: "fails-late", description: "a terminal transport that fails once its child has started" },
  capabilities: { tty: true, resize: true, signals: true, input: "forward" },
  supports: () => true,
  open: async (command, options) => {
    const child = Bun.spawnSync([...command], { cwd: options.cwd, env: options.env });
    options.onOutput("stdout", child.stdout);
    throw new Error("lost its PTY after the start");
  },
});
`;

test("a terminal transport that fails after the command started is not replaced: the command runs once", async () => {
  using dir = tempDir("derun-late-failure-");
  const plugin = join(dir.path, "fails-late.ts");
  writeFileSync(plugin, FAILS_LATE);
  const ran = join(dir.path, "ran");
  // The second run would find the file there and say so.
  const command = ["sh", "-c", `if [ -e "${ran}" ]; then echo second; else echo first; : > "${ran}"; fi`];
  const run = await runDerun(["run", "--transport", plugin, "--", ...command], { stateRoot: join(dir.path, "state") });
  expect(run.exitCode).toBe(1);
  expect(text(run.stdout)).not.toContain("second");
  expect(text(run.stderr)).toMatch(/^derun: transport "fails-late" failed after the command started: .*lost its PTY after the start\n$/);
  expect(existsSync(ran)).toBe(true);
});
