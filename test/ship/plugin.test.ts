/**
 * Third-party transports through the compiled binary: the example bwrap transport loaded by path
 * (it imports only `derun/plugin`, which the binary serves), and every loading failure as one
 * line naming the plugin and the stage, exit 1, and the session recorded as `failed`.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT, runDerun, tempDir, text } from "../helpers/cli.ts";
import { readSession } from "../helpers/session.ts";
import { shipFixture } from "../helpers/binary.ts";

const TIMEOUT = 30_000;
const EXAMPLE = join(REPO_ROOT, "examples/transport-bwrap");
const ship = shipFixture("derun-ship-plugin-");
const { state, work } = ship;

async function run(args: string[], env: Record<string, string> = {}) {
  const done = await runDerun(args, { stateRoot: state.path, cwd: work.path, derun: ship.binary, env });
  return { exitCode: done.exitCode, stdout: text(done.stdout), stderr: text(done.stderr) };
}

const onLinux = process.platform === "linux";
const bwrapPath = Bun.which("bwrap");
/** bwrap can be installed and still be refused (no user namespaces in a container): ask it. */
const bwrapWorks =
  onLinux && bwrapPath !== null && Bun.spawnSync([bwrapPath, "--ro-bind", "/", "/", "--unshare-all", "true"]).exitCode === 0;
if (!bwrapWorks) {
  console.warn(
    `skipping the sandboxed runs of examples/transport-bwrap: ` +
      `${!onLinux ? "not Linux" : bwrapPath ? "bwrap cannot create namespaces here" : "bwrap is not installed (apt install bubblewrap)"}`,
  );
}

describe("examples/transport-bwrap through the compiled binary", () => {
  test.skipIf(!bwrapWorks)(
    "runs the command sandboxed: read-only system, writable cwd, private /tmp, no network",
    async () => {
      const probe = [
        "echo out; echo err >&2",
        "touch /etc/derun-ship-probe 2>/dev/null && echo etc-writable || echo etc-read-only",
        "echo written > here.txt && cat here.txt",
        // The state root lives in the host's temp dir; inside, /tmp is a fresh tmpfs.
        `[ -e ${JSON.stringify(state.path)} ] && echo tmp-shared || echo tmp-private`,
        "cut -d: -f1 /proc/net/dev | tail -n +3 | tr -d ' ' | tr '\\n' ' '; echo",
        "exit 5",
      ].join("; ");
      const done = await run(["run", "--session-id", "bwrap-ok", "--transport", EXAMPLE, "--", "sh", "-c", probe]);
      expect(done.stderr).toBe("err\n");
      const tmp = state.path.startsWith("/tmp/") ? "tmp-private" : "tmp-shared";
      expect(done.stdout).toBe(`out\netc-read-only\nwritten\n${tmp}\nlo \n`);
      expect(done.exitCode).toBe(5);
      const session = readSession(state.path, "bwrap-ok");
      expect(session.meta).toMatchObject({ transport_mode: "bwrap", tty_attached: false });
      expect(session.final).toMatchObject({ state: "exited", exit_code: 5 });
      expect(new Set(session.index.map((r) => r.channel))).toEqual(new Set(["stdout", "stderr"]));
    },
    TIMEOUT,
  );

  test.skipIf(!bwrapWorks)(
    "a command that does not exist is the plugin's SpawnError: exit 127 as a shell would",
    async () => {
      const done = await run(["run", "--transport", EXAMPLE, "--", "derun-no-such-command-7f3"]);
      expect(done.exitCode).toBe(127);
      expect(done.stderr).toBe("derun: command not found: derun-no-such-command-7f3\n");
    },
    TIMEOUT,
  );

  test.skipIf(!onLinux)(
    "without bwrap it refuses to run unsandboxed: open() failed, exit 1, session failed",
    async () => {
      using empty = tempDir("derun-ship-nopath-");
      const done = await run(["run", "--session-id", "bwrap-missing", "--transport", EXAMPLE, "--", "true"], { PATH: empty.path });
      expect(done.exitCode).toBe(1);
      expect(done.stdout).toBe("");
      expect(done.stderr).toBe(
        `derun: transport plugin "${EXAMPLE}": open() failed: bwrap not found on PATH (install bubblewrap); refusing to run the ` +
          `command unsandboxed\n`,
      );
      expect(readSession(state.path, "bwrap-missing").final).toMatchObject({ state: "failed" });
    },
    TIMEOUT,
  );
});

describe("plugin loading failures through the compiled binary", () => {
  const plugin = (name: string, source: string) => {
    writeFileSync(join(work.path, name), source);
    return `./${name}`;
  };
  const shape = `meta: { name: "broken", description: "test" },
  capabilities: { tty: false, resize: false, signals: true, input: "inherit" },
  supports: () => true,`;

  const cases: Array<[stage: string, spec: () => string, line: (spec: string) => string]> = [
    ["not found", () => "./no-such-plugin.ts", (spec) => `transport plugin "${spec}": not found`],
    [
      "wrong shape",
      () => plugin("shapeless.ts", `export default { meta: { name: "x" } };\n`),
      (spec) =>
        `transport plugin "${spec}": invalid shape: capabilities must be an object (was missing); open must be a function (was ` +
        `missing); supports must be a function (was missing)`,
    ],
    [
      "throws on import",
      () => plugin("throws.ts", `throw new Error("cannot start here");\n`),
      (spec) => `transport plugin "${spec}": failed to import: cannot start here`,
    ],
    [
      "open() fails",
      () =>
        plugin(
          "refuses.ts",
          `import { defineTransport } from "derun/plugin";\nexport default defineTransport({ ${shape} open: async () => { throw new ` +
            `Error("no backend"); } });\n`,
        ),
      (spec) => `transport plugin "${spec}": open() failed: no backend`,
    ],
  ];

  for (const [stage, spec, line] of cases) {
    test(
      `${stage}: one line naming the plugin and the stage, exit 1, session failed`,
      async () => {
        const id = `load-${stage.replace(/\W+/g, "-")}`;
        const name = spec();
        const done = await run(["run", "--session-id", id, "--transport", name, "--", "echo", "never"]);
        expect(done.exitCode).toBe(1);
        expect(done.stdout).toBe("");
        expect(done.stderr).toBe(`derun: ${line(name)}\n`);
        expect(readSession(state.path, id).final).toMatchObject({ state: "failed", error: line(name) });
      },
      TIMEOUT,
    );
  }
});
