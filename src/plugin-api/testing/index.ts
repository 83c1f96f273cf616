/**
 * `derun/plugin/testing`: the conformance battery every transport must pass where it can run,
 * through real processes (and, for PTY transports, a real PTY). The built-in transports' test files
 * and third-party plugins call {@link testTransport} from a `bun test` file and add their own cases.
 *
 * PTY children put their side of the terminal in raw mode (`stty raw -echo`) before producing
 * bytes: a cooked PTY turns LF into CRLF, which is the terminal's doing, not the transport's.
 */
import { afterAll, describe, expect, test as bunTest } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { SpawnError, type DerunOutputChannel, type RunningChild, type Transport, type TransportCapabilities, type TransportOpenOptions } from "../index.ts";

const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");

export interface TransportUnderTest {
  readonly name: string;
  readonly load: () => Promise<Transport>;
  /**
   * The module that default-exports the transport (a path or file URL), for the one case that needs
   * a process of its own: an inheriting transport's child reading that process's stdin. Without it
   * that case is skipped.
   */
  readonly module?: string;
  readonly caps: TransportCapabilities;
  /**
   * Cases this transport cannot pass, by their exact name, each with the reason (a limit of what it
   * wraps, not a bug to hide): they are listed as skipped with the reason in their name.
   */
  readonly knownGaps?: Readonly<Record<string, string>>;
  /** Extra open options for every child (e.g. a window size). */
  readonly spawnOptions?: Partial<Omit<TransportOpenOptions, "onOutput">>;
}

/** What a child wrote, per channel, plus its exit. */
export interface Collected {
  readonly child: RunningChild;
  readonly chunks: Array<{ channel: DerunOutputChannel; bytes: Uint8Array }>;
  bytes(channel?: DerunOutputChannel): Buffer;
  text(channel?: DerunOutputChannel): string;
  /** Resolves once the collected output contains `needle`. */
  waitFor(needle: string): Promise<void>;
}

/** Opens `command` on `transport`, collecting copies of every output chunk. */
export async function openCollecting(
  transport: Transport,
  command: readonly string[],
  extra: Partial<Omit<TransportOpenOptions, "onOutput">> = {},
): Promise<Collected> {
  const chunks: Array<{ channel: DerunOutputChannel; bytes: Uint8Array }> = [];
  let onChunk = () => {};
  const child = await transport.open(command, {
    cwd: process.cwd(),
    env: process.env,
    ...extra,
    onOutput: (channel, bytes) => {
      chunks.push({ channel, bytes: bytes.slice() });
      onChunk();
    },
  });
  const bytes = (channel?: DerunOutputChannel) =>
    Buffer.concat(chunks.filter((c) => channel === undefined || c.channel === channel).map((c) => c.bytes));
  const text = (channel?: DerunOutputChannel) => bytes(channel).toString("latin1");
  const waitFor = (needle: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (text().includes(needle)) resolve();
      };
      onChunk = check;
      check();
      child.exited.then(() => (text().includes(needle) ? resolve() : reject(new Error(`exited before "${needle}"`))));
    });
  return { child, chunks, bytes, text, waitFor };
}


/** Registers the whole battery for one transport. */
export function testTransport(subject: TransportUnderTest): void {
  const { caps } = subject;
  // Output channel for plain writes: the PTY, or stdout of a pipe.
  const out: DerunOutputChannel = caps.tty ? "pty" : "stdout";
  const raw = caps.tty ? "stty raw -echo; " : "";
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `derun-${subject.name}-`));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  // Children run in the scratch directory: a sandboxing transport may hide the rest (a private /tmp).
  const spawnOptions = { cwd: dir, ...subject.spawnOptions };
  const run = async (script: string) => openCollecting(await subject.load(), ["sh", "-c", script], spawnOptions);
  const gaps = subject.knownGaps ?? {};
  const test = (name: string, body: () => Promise<void>) => {
    const gap = gaps[name];
    if (gap === undefined) bunTest(name, body);
    else bunTest.skip(`${name} (known gap: ${gap})`, body);
  };

  describe(`transport ${subject.name} (conformance)`, () => {
    test("meta and capabilities are as declared", async () => {
      const transport = await subject.load();
      expect(transport.meta.name).toBe(subject.name);
      expect(transport.capabilities).toEqual(caps);
    });

    test("write() and resize() are there exactly where the capabilities say", async () => {
      const c = await run("exit 0");
      expect(typeof c.child.write === "function").toBe(caps.input === "forward");
      if (caps.resize) expect(typeof c.child.resize).toBe("function");
      expect(await c.child.exited).toEqual({ kind: "exited", code: 0 });
    });

    test("several MB of random binary arrive byte-exact", async () => {
      const file = path.join(dir, "random.bin");
      const data = crypto.getRandomValues(new Uint8Array(4 * 1024 * 1024));
      fs.writeFileSync(file, data);
      const c = await run(`${raw}cat '${file}'`);
      expect(await c.child.exited).toEqual({ kind: "exited", code: 0 });
      expect(c.bytes(out).length).toBe(data.length);
      expect(sha256(c.bytes(out))).toBe(sha256(data));
    });

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

    test("large output (8 MB of a repeated line) arrives complete", async () => {
      const lines = 8 * 1024 * 1024 / 64;
      const c = await run(`${raw}yes 'abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0' | head -n ${lines}`);
      expect(await c.child.exited).toEqual({ kind: "exited", code: 0 });
      const line = "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0\n";
      expect(c.bytes(out).length).toBe(lines * line.length);
      expect(c.text(out)).toBe(line.repeat(lines));
    });

    test("no output is lost when the child exits right after writing (50 runs)", async () => {
      const transport = await subject.load();
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

    test("a command that does not exist rejects with SpawnError ENOENT", async () => {
      const transport = await subject.load();
      const error = await transport.open(["derun-no-such-command-4f1e"], options()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SpawnError);
      expect((error as SpawnError).errno).toBe("ENOENT");
      expect((error as SpawnError).message).toBe("command not found: derun-no-such-command-4f1e");
    });

    test("a missing working directory rejects with SpawnError ENOENT naming it", async () => {
      const transport = await subject.load();
      const cwd = path.join(dir, "no-such-dir");
      const error = await transport.open(["true"], { ...options(), cwd }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SpawnError);
      expect((error as SpawnError).message).toBe(`working directory not found: ${cwd}`);
    });

    test("a file without execute permission and a directory reject with SpawnError EACCES", async () => {
      const transport = await subject.load();
      const file = path.join(dir, "not-executable.sh");
      fs.writeFileSync(file, "#!/bin/sh\necho hi\n", { mode: 0o644 });
      for (const target of [file, dir]) {
        const error = await transport.open([target], options()).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(SpawnError);
        expect((error as SpawnError).errno).toBe("EACCES");
      }
    });

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
      bunTest.skipIf(subject.module === undefined)("the child reads derun's inherited stdin", async () => {
        const file = path.join(dir, "stdin.bin");
        const data = crypto.getRandomValues(new Uint8Array(512 * 1024));
        fs.writeFileSync(file, data);
        // A separate process whose stdin is the file runs the transport with `cat` as the child.
        const helper = Bun.spawn([process.execPath, path.join(import.meta.dir, "echo-stdin.ts"), subject.module!], {
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
  });

  function options(): TransportOpenOptions {
    return { env: process.env, ...spawnOptions, onOutput: () => {} };
  }
}
