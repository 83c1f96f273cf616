/**
 * The cases of the conformance battery, in groups by what they check. Each group registers its
 * cases for one transport through the {@link Battery} that testTransport (./index.ts) builds.
 */
import { expect, test as bunTest } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { SpawnError, type DerunOutputChannel, type Transport, type TransportCapabilities, type TransportOpenOptions } from "../index.ts";
import { openCollecting, type Collected } from "./collect.ts";

const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");

/** What every case shares: the transport under test and how to run a child on it. */
export interface Battery {
  /** As in TransportUnderTest (./index.ts). */
  readonly name: string;
  readonly load: () => Promise<Transport>;
  readonly module: string | undefined;
  readonly caps: TransportCapabilities;
  /** The channel plain writes arrive on: the PTY, or stdout of a pipe. */
  readonly out: DerunOutputChannel;
  /** What a PTY child runs first, so that its terminal passes bytes unchanged (empty for pipes). */
  readonly raw: string;
  /** The scratch directory, every child's working directory. */
  readonly dir: string;
  readonly spawnOptions: Partial<Omit<TransportOpenOptions, "onOutput">>;
  /** Open options for a child whose output no case looks at. */
  options(): TransportOpenOptions;
  /** `sh -c script` on the transport, collecting its output. */
  run(script: string): Promise<Collected>;
  /** Registers a case, or skips it with the reason when it is a known gap. */
  test(name: string, body: () => Promise<void>): void;
}

/** The transport is what it declares: meta, capabilities, and the optional methods they imply. */
export function shapeCases({ name, load, caps, run, test }: Battery): void {
  test("meta and capabilities are as declared", async () => {
    const transport = await load();
    expect(transport.meta.name).toBe(name);
    expect(transport.capabilities).toEqual(caps);
  });

  test("write() and resize() are there exactly where the capabilities say", async () => {
    const c = await run("exit 0");
    expect(typeof c.child.write === "function").toBe(caps.input === "forward");
    expect(typeof c.child.resize === "function").toBe(caps.resize);
    expect(await c.child.exited).toEqual({ kind: "exited", code: 0 });
  });
}

/** Every byte arrives, unchanged and complete, also when the child exits right after writing. */
export function outputCases({ load, out, raw, dir, spawnOptions, run, test }: Battery): void {
  test("several MB of random binary arrive byte-exact", async () => {
    const file = path.join(dir, "random.bin");
    const data = crypto.getRandomValues(new Uint8Array(4 * 1024 * 1024));
    fs.writeFileSync(file, data);
    const c = await run(`${raw}cat '${file}'`);
    expect(await c.child.exited).toEqual({ kind: "exited", code: 0 });
    expect(c.bytes(out).length).toBe(data.length);
    expect(sha256(c.bytes(out))).toBe(sha256(data));
  });

  test("large output (8 MB of a repeated line) arrives complete", async () => {
    const lines = (8 * 1024 * 1024) / 64;
    const c = await run(`${raw}yes 'abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0' | head -n ${lines}`);
    expect(await c.child.exited).toEqual({ kind: "exited", code: 0 });
    const line = "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0\n";
    expect(c.bytes(out).length).toBe(lines * line.length);
    expect(c.text(out)).toBe(line.repeat(lines));
  });

  test("no output is lost when the child exits right after writing (50 runs)", async () => {
    const transport = await load();
    const file = path.join(dir, "burst.bin");
    const data = crypto.getRandomValues(new Uint8Array(64 * 1024));
    fs.writeFileSync(file, data);
    const expected = sha256(data);
    for (let i = 0; i < 50; i++) {
      const c = await openCollecting(transport, ["sh", "-c", `${raw}cat '${file}'; exit 0`], spawnOptions);
      await c.child.exited;
      expect(sha256(c.bytes(out))).toBe(expected);
    }
  });
}

/** How the child ended: its exit code, a signal it died of, a signal sent through kill(). */
export function exitCases({ caps, out, run, test }: Battery): void {
  for (const code of [0, 3, 255]) {
    test(`exit code ${code} is reported`, async () => {
      const c = await run(`exit ${code}`);
      expect(await c.child.exited).toEqual({ kind: "exited", code });
    });
  }

  test("a child that kills itself with SIGTERM is reported as signaled", async () => {
    const c = await run("kill -TERM $$");
    expect(await c.child.exited).toEqual({ kind: "signaled", signal: "SIGTERM" });
  });

  if (caps.signals) {
    test("kill() delivers the named signal", async () => {
      const c = await run(`trap 'echo got-usr1; exit 42' USR1; echo ready; while :; do sleep 0.02; done`);
      await c.waitFor("ready");
      c.child.kill("SIGUSR1");
      expect(await c.child.exited).toEqual({ kind: "exited", code: 42 });
      expect(c.text(out)).toContain("got-usr1");
    });
  }
}

/** A command that cannot start rejects with a SpawnError a shell would map to 127 or 126. */
export function spawnErrorCases({ load, dir, options, test }: Battery): void {
  test("a command that does not exist rejects with SpawnError ENOENT", async () => {
    const transport = await load();
    const error = await transport.open(["derun-no-such-command-4f1e"], options()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SpawnError);
    expect((error as SpawnError).errno).toBe("ENOENT");
    expect((error as SpawnError).message).toBe("command not found: derun-no-such-command-4f1e");
  });

  test("a missing working directory rejects with SpawnError ENOENT naming it", async () => {
    const transport = await load();
    const cwd = path.join(dir, "no-such-dir");
    const error = await transport.open(["true"], { ...options(), cwd }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SpawnError);
    expect((error as SpawnError).message).toBe(`working directory not found: ${cwd}`);
  });

  test("a file without execute permission and a directory reject with SpawnError EACCES", async () => {
    const transport = await load();
    const file = path.join(dir, "not-executable.sh");
    fs.writeFileSync(file, "#!/bin/sh\necho hi\n", { mode: 0o644 });
    for (const target of [file, dir]) {
      const error = await transport.open([target], options()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SpawnError);
      expect((error as SpawnError).errno).toBe("EACCES");
    }
  });
}

/** The child's exit ends the run even when a grandchild still holds its output. */
export function afterExitCases({ out, run, test }: Battery): void {
  test("a background grandchild holding the output does not hang exited", async () => {
    const c = await run("sleep 30 & echo grandchild=$!; exit 5");
    expect(await c.child.exited).toEqual({ kind: "exited", code: 5 });
    const pid = Number(/grandchild=(\d+)/.exec(c.text(out))?.[1]);
    expect(pid).toBeGreaterThan(0);
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // A PTY hangup (SIGHUP at the session leader's exit) may already have ended it.
    }
  });
}

/** Input reaches the child unchanged: through write() when forwarded, else as derun's own stdin. */
export function inputCases({ module, caps, raw, dir, run, test }: Battery): void {
  if (caps.input === "forward") {
    test("write() reaches the child unchanged, a large paste included", async () => {
      const file = path.join(dir, "stdin.bin");
      const data = crypto.getRandomValues(new Uint8Array(512 * 1024));
      const c = await run(`${raw}echo ready; head -c ${data.length} > '${file}'; echo done`);
      await c.waitFor("ready");
      c.child.write!(data);
      expect(await c.child.exited).toEqual({ kind: "exited", code: 0 });
      expect(sha256(fs.readFileSync(file))).toBe(sha256(data));
    });
  } else {
    bunTest.skipIf(module === undefined)("the child reads derun's inherited stdin", async () => {
      const file = path.join(dir, "stdin.bin");
      const data = crypto.getRandomValues(new Uint8Array(512 * 1024));
      fs.writeFileSync(file, data);
      // A separate process whose stdin is the file runs the transport with `cat` as the child.
      const helper = Bun.spawn([process.execPath, path.join(import.meta.dir, "echo-stdin.ts"), module!], {
        stdin: Bun.file(file),
        cwd: dir,
        stdout: "pipe",
        stderr: "inherit",
      });
      const received = new Uint8Array(await new Response(helper.stdout).arrayBuffer());
      expect(await helper.exited).toBe(0);
      expect(sha256(received)).toBe(sha256(data));
    });
  }
}
