/**
 * npm's launcher (bin/derun.js) at a real terminal: an interactive bash in tmux where `derun` is the
 * launcher in an npm layout beside the compiled binary, under Node (which waits for the binary as a
 * child: Node before 22.15 cannot exec) and under Bun (which execs it). Ctrl-C ends the command as
 * without derun (exit 130), Ctrl-Z stops it and `fg` brings it back, the exit status comes through.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import platforms from "../../bin/platforms.json" with { type: "json" };
import { derunEnv, REPO_ROOT, tempDir } from "../helpers/cli.ts";
import { hasTmux, openShellPane } from "../helpers/tmux.ts";
import { compiledBinary } from "../helpers/binary.ts";

const TIMEOUT = 60_000;
const platform = (platforms as Record<string, { name: string; exe: string }>)[`${process.platform}-${process.arch}`];
const node = Bun.which("node");
const work = tempDir("derun-launcher-tty-");
const state = tempDir("derun-launcher-tty-state-");
const launcher = join(work.path, "node_modules", "derun", "bin", "derun.js");

beforeAll(async () => {
  const modules = join(work.path, "node_modules");
  mkdirSync(join(modules, "derun", "bin"), { recursive: true });
  mkdirSync(join(modules, platform!.name, "bin"), { recursive: true });
  for (const file of ["derun.js", "platforms.json"]) copyFileSync(join(REPO_ROOT, "bin", file), join(modules, "derun", "bin", file));
  writeFileSync(join(modules, "derun", "package.json"), JSON.stringify({ name: "derun", type: "module" }));
  writeFileSync(join(modules, platform!.name, "package.json"), JSON.stringify({ name: platform!.name }));
  symlinkSync(await compiledBinary(), join(modules, platform!.name, "bin", platform!.exe));
}, 120_000);
afterAll(() => {
  work[Symbol.dispose]();
  state[Symbol.dispose]();
});

const runtimes = [
  { name: "node (child process)", argv: () => [node!, launcher], skip: node === null },
  { name: "bun (exec)", argv: () => [process.execPath, launcher], skip: false },
];

describe.skipIf(!hasTmux || platform === undefined)("the npm launcher at a terminal", () => {
  for (const runtime of runtimes) {
    test.skipIf(runtime.skip)(
      `${runtime.name}: Ctrl-C, Ctrl-Z and fg, and the exit status, as without derun`,
      async () => {
        using dir = tempDir("derun-launcher-pane-");
        await using pane = await openShellPane(dir.path, derunEnv(state.path), runtime.argv());
        // bash drops the rest of a list whose command died of SIGINT (as without derun): $? comes next.
        pane.run("derun run -- sh -c 'echo started; sleep 100'");
        await pane.settled((s) => /^started$/m.test(s), "the command started");
        pane.keys("C-c");
        await pane.prompt();
        pane.run('echo "exit $?"');
        await pane.prompt();
        expect(pane.screen()).toMatch(/^exit 130$/m);
        pane.run("clear; derun run -- sh -c 'echo again; sleep 100'");
        await pane.settled((s) => /^again$/m.test(s), "the second command started");
        pane.keys("C-z");
        expect(await pane.prompt()).toMatch(/Stopped/);
        pane.run("fg");
        await pane.settled((s) => /\nderun run -- sh -c 'echo again; sleep 100'$/.test(s), "fg named the job");
        pane.keys("C-c");
        await pane.prompt();
        pane.run('echo "after fg $?"');
        await pane.prompt();
        expect(pane.screen()).toMatch(/^after fg 130$/m);
        pane.run(`clear; derun run -- sh -c 'exit 7'; echo "exit $?"`);
        await pane.prompt();
        expect(pane.screen()).toMatch(/^exit 7$/m);
      },
      TIMEOUT,
    );
  }
});
