/**
 * `derun mcp config <client> --ssh <host>` against a real sshd (Debian's openssh-server) started
 * here on 127.0.0.1, on a free port, with a generated host key and a key-only login for the current
 * user: an SDK client started through exactly the printed command lists and reads the sessions
 * recorded on "the other side" (another state root, which sshd hands its sessions through SetEnv as
 * that machine's own environment would), not this side's. The client's ssh is a wrapper on PATH that
 * adds this test's ssh_config (-F), as a user's ~/.ssh/config would. Skips, saying why, where sshd
 * cannot run. `--container` is checked through a stand-in `docker` on PATH that runs `exec -i <name>
 * <command>` here (no container engine runs in this suite).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";
import { derunArgv, derunEnv, derunShell, runDerun, tempDir, text } from "../../helpers/cli.ts";
import { exec } from "../../helpers/exec.ts";

const TIMEOUT = 60_000;
const work = tempDir("derun-remote-");
const dir = work.path;
const local = join(dir, "state-here");
const there = join(dir, "state-there");
const elsewhere = join(dir, "state-there-2");
const bin = join(dir, "bin");
const remoteDerun = join(dir, "remote-bin", "derun");
// `id -un`: Bun's os.userInfo() answers "unknown" for root on some systems.
const user = text(Bun.spawnSync(["id", "-un"]).stdout).trim() || userInfo().username;

/** A program the test needs, by absolute path, or why it is missing. */
const which = (name: string, fallback?: string) => Bun.which(name) ?? (fallback && existsSync(fallback) ? fallback : undefined);

function writeExecutable(file: string, body: string): void {
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, body);
  chmodSync(file, 0o755);
}

/** A port nobody listens on now. */
function freePort(): number {
  const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = server.port;
  server.stop(true);
  return port;
}

/** Resolves once something accepts on the port, or rejects when `proc` ends first. */
async function accepting(port: number, proc: Bun.Subprocess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`sshd exited ${proc.exitCode}: ${stderr().trim()}`);
    const connected = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } }).then(
      (socket) => (socket.end(), true),
      () => false,
    );
    if (connected) return;
    await Bun.sleep(25); // polling a condition: the port accepting
  }
  throw new Error(`sshd did not accept on port ${port} within 20 s: ${stderr().trim()}`);
}

type Sshd = { ok: true; proc: Bun.Subprocess; port: number } | { ok: false; reason: string };

async function startSshd(): Promise<Sshd> {
  const sshd = which("sshd", "/usr/sbin/sshd");
  const ssh = which("ssh");
  const keygen = which("ssh-keygen");
  if (!sshd || !ssh || !keygen) return { ok: false, reason: "sshd, ssh or ssh-keygen is missing (Debian: apt-get install openssh-server)" };
  for (const key of ["host_key", "id"]) {
    const made = Bun.spawnSync([keygen, "-q", "-t", "ed25519", "-N", "", "-C", "derun-test", "-f", join(dir, key)]);
    if (made.exitCode !== 0) return { ok: false, reason: `ssh-keygen failed: ${text(made.stderr)}` };
  }
  writeFileSync(join(dir, "authorized_keys"), readFileSync(join(dir, "id.pub")));
  // sshd refuses to start as root without its privilege separation directory (made by the package's service).
  if (process.getuid?.() === 0 && !existsSync("/run/sshd")) mkdirSync("/run/sshd", { mode: 0o755 });
  const port = freePort();
  const config = join(dir, "sshd_config");
  writeFileSync(
    config,
    [
      `Port ${port}`,
      "ListenAddress 127.0.0.1",
      `HostKey ${join(dir, "host_key")}`,
      `PidFile ${join(dir, "sshd.pid")}`,
      `AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
      "StrictModes no",
      "PubkeyAuthentication yes",
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "PermitRootLogin prohibit-password",
      "UsePAM no",
      `AllowUsers ${user}`,
      // That machine's own environment: its derun's default state root.
      `SetEnv DERUN_STATE_ROOT=${there}`,
      "",
    ].join("\n"),
  );
  const proc = Bun.spawn([sshd, "-D", "-e", "-f", config], { stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  let stderr = "";
  void (async () => {
    for await (const chunk of proc.stderr) stderr += new TextDecoder().decode(chunk);
  })();
  try {
    await accepting(port, proc, () => stderr);
  } catch (error) {
    proc.kill("SIGKILL");
    return { ok: false, reason: `sshd cannot run here: ${(error as Error).message.slice(0, 300)}` };
  }
  // The client side: known host key, this identity, through a wrapper named ssh on PATH.
  const hostKey = readFileSync(join(dir, "host_key.pub"), "utf8").trim();
  writeFileSync(join(dir, "known_hosts"), `[127.0.0.1]:${port} ${hostKey}\n`);
  writeFileSync(
    join(dir, "ssh_config"),
    [
      "Host derun-remote",
      "  HostName 127.0.0.1",
      `  Port ${port}`,
      `  User ${user}`,
      `  IdentityFile ${join(dir, "id")}`,
      "  IdentitiesOnly yes",
      `  UserKnownHostsFile ${join(dir, "known_hosts")}`,
      "  StrictHostKeyChecking yes",
      "  LogLevel ERROR",
      "",
    ].join("\n"),
  );
  writeExecutable(join(bin, "ssh"), `#!/bin/sh\nexec ${ssh} -F ${join(dir, "ssh_config")} "$@"\n`);
  return { ok: true, proc, port };
}

// The derun "installed on the other machine": the one under test, by absolute path.
writeExecutable(remoteDerun, `#!/bin/sh\nexec ${derunShell()} "$@"\n`);
const sshd = await startSshd();
// Where sshd is part of the set-up (.ci/run installs openssh-server), one that cannot run is a
// failure, not a quiet skip that leaves the run green.
const sshdRequired = process.env.DERUN_REQUIRE_SSHD === "1";
if (!sshd.ok && !sshdRequired) console.log(`skip: ${sshd.reason}`);
test.if(sshdRequired)("a real sshd runs here (DERUN_REQUIRE_SSHD=1: .ci/run installed it)", () => {
  expect(sshd.ok ? "" : sshd.reason).toBe("");
});
afterAll(async () => {
  if (sshd.ok) {
    sshd.proc.kill("SIGTERM");
    await sshd.proc.exited;
  }
  work[Symbol.dispose]();
});

const configEnv = () => derunEnv(local, { PATH: `${bin}:${process.env.PATH}` });

/** Starts an SDK client as `command args` with only a GUI client's environment, lists the sessions, reads. */
async function withSessions<T>(
  command: string,
  args: string[],
  env: Record<string, string> | undefined,
  use: (s: { ids: string[]; read: (id: string) => Promise<string> }) => Promise<T>,
): Promise<T> {
  const client = new Client({ name: "derun-remote-test", version: "0" });
  const transport = new StdioClientTransport({ command, args, env: { HOME: process.env.HOME ?? "/", ...env }, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk) => (stderr += String(chunk)));
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`${command} ${args.join(" ")} did not start an MCP server: ${(error as Error).message}; stderr: ${stderr}`);
  }
  try {
    const listed = await client.callTool({ name: "derun_list_sessions", arguments: {} });
    const ids = (listed.structuredContent as { sessions: { session_id: string }[] }).sessions.map((session) => session.session_id);
    const read = async (id: string) => {
      const answer = await client.callTool({ name: "derun_read_output", arguments: { session_id: id, cursor: "0" } });
      return (answer.structuredContent as { chunks: { data: string }[] }).chunks.map((chunk) => chunk.data).join("");
    };
    return await use({ ids, read });
  } finally {
    await client.close();
  }
}

describe("sessions on another machine", () => {
  test.skipIf(!sshd.ok)(
    "--ssh: the printed Cursor configuration starts derun mcp over ssh, which lists and reads the other side's sessions",
    async () => {
      for (const [root, id, line] of [
        [local, "here-only", "recorded here"],
        [there, "on-the-other-side", "built there"],
      ] as const) {
        const done = await runDerun(["run", "--session-id", id, "--", "echo", line], { stateRoot: root });
        expect(done.exitCode).toBe(0);
      }
      const printed = await exec([...derunCmd(), "mcp", "config", "cursor", "--ssh", "derun-remote", "--derun", remoteDerun], {
        env: configEnv(),
        cwd: dir,
      });
      expect(printed.exitCode, printed.stderr).toBe(0);
      expect(printed.stderr).toContain("derun mcp runs on derun-remote over ssh");
      const entry = JSON.parse(printed.stdout).mcpServers.derun as { command: string; args: string[]; env?: unknown };
      expect(entry).toEqual({ command: join(bin, "ssh"), args: ["-T", "-o", "BatchMode=yes", "derun-remote", `${remoteDerun} mcp`] });
      await withSessions(entry.command, entry.args, undefined, async ({ ids, read }) => {
        expect(ids).toEqual(["on-the-other-side"]);
        expect(await read("on-the-other-side")).toBe("built there\n");
      });
    },
    TIMEOUT,
  );

  test.skipIf(!sshd.ok)(
    "--ssh with --state-root: the Codex TOML (it parses) names that state root on the other side",
    async () => {
      const done = await runDerun(["run", "--session-id", "in-another-root", "--", "printf", "x y\\n"], { stateRoot: elsewhere });
      expect(done.exitCode).toBe(0);
      const printed = await exec(
        [...derunCmd(), "mcp", "config", "codex", "--ssh", "derun-remote", "--derun", remoteDerun, "--state-root", elsewhere],
        {
          env: configEnv(),
          cwd: dir,
        },
      );
      expect(printed.exitCode, printed.stderr).toBe(0);
      const server = (Bun.TOML.parse(printed.stdout) as { mcp_servers: { derun: { command: string; args: string[]; env?: unknown } } })
        .mcp_servers.derun;
      expect(server.env).toBeUndefined();
      await withSessions(server.command, server.args, undefined, async ({ ids, read }) => {
        expect(ids).toEqual(["in-another-root"]);
        expect(await read("in-another-root")).toBe("x y\n");
      });
    },
    TIMEOUT,
  );

  test(
    "--container: docker exec -i <name> derun mcp (a stand-in docker on PATH runs it here, in the container's state root)",
    async () => {
      const box = join(dir, "state-in-box");
      const done = await runDerun(["run", "--session-id", "in-the-box", "--", "echo", "inside"], { stateRoot: box });
      expect(done.exitCode).toBe(0);
      // `docker exec -i <name> <command...>`: checks the words it is given, then runs the command with the box's environment.
      const fakeBin = join(dir, "engine-bin");
      writeExecutable(
        join(fakeBin, "docker"),
        `#!/bin/sh\n[ "$1" = exec ] && [ "$2" = -i ] && [ "$3" = box ] || { echo "unexpected: $*" >&2; exit 125; }\nshift ` +
          `3\nDERUN_STATE_ROOT=${box} PATH=${join(dir, "remote-bin")}:/usr/bin:/bin exec "$@"\n`,
      );
      const printed = await exec([...derunCmd(), "mcp", "config", "vscode", "--container", "box"], {
        env: derunEnv(local, { PATH: `${fakeBin}:${process.env.PATH}` }),
        cwd: dir,
      });
      expect(printed.exitCode, printed.stderr).toBe(0);
      const entry = JSON.parse(printed.stdout).servers.derun as { type: string; command: string; args: string[] };
      expect(entry).toEqual({ type: "stdio", command: join(fakeBin, "docker"), args: ["exec", "-i", "box", "derun", "mcp"] });
      await withSessions(entry.command, entry.args, undefined, async ({ ids, read }) => {
        expect(ids).toEqual(["in-the-box"]);
        expect(await read("in-the-box")).toBe("inside\n");
      });
      const podman = await exec([...derunCmd(), "mcp", "config", "claude-code", "--container", "box", "--engine", "podman"], {
        env: derunEnv(local, { PATH: `${fakeBin}:${process.env.PATH}` }),
        cwd: dir,
      });
      expect(podman.exitCode === 0 ? podman.stdout : podman.stderr).toMatch(/podman( is not on PATH|.* exec -i box derun mcp)/);
    },
    TIMEOUT,
  );

  test(
    "bad combinations: one line, exit 2",
    async () => {
      for (const [args, message] of [
        [["--ssh", "a", "--container", "b"], "derun: --ssh and --container name two machines: give one"],
        [["--engine", "docker"], "derun: --engine goes with --container"],
        [["--derun", "/x"], "derun: --derun names the derun on another machine: give it with --ssh or --container"],
        [["--ssh=-oProxyCommand=x"], 'derun: --ssh needs a host ([user@]host) (got "-oProxyCommand=x")'],
      ] as const) {
        const done = await exec([...derunCmd(), "mcp", "config", "cursor", ...args], { env: configEnv(), cwd: dir });
        expect({ exitCode: done.exitCode, stdout: done.stdout, first: done.stderr.split("\n")[0] }).toEqual({
          exitCode: 2,
          stdout: "",
          first: message,
        });
      }
    },
    TIMEOUT,
  );
});

const derunCmd = derunArgv;
