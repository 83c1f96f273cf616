/**
 * windows-conpty's logic, driven by a fake pseudo console: what derun adds around the console
 * (bytes passed through unchanged both ways, resize following, the post-exit drain and close,
 * exit mapping, start errors), plus conpty.ts's command line and environment block. The real
 * console (kernel32) runs under Wine in test/windows/conpty.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { EventEmitter } from "node:events";
import windowsConPty from "../../src/plugins/windows-conpty/index.ts";
import { exitOf, startConPtyChild, type ConPtyDeps, type PseudoConsole } from "../../src/plugins/windows-conpty/conpty-child.ts";
import { environmentBlock, quoteArgument } from "../../src/plugins/windows-conpty/conpty.ts";
import { SpawnError, type ChildExit } from "../../src/core/transport.ts";
import { manualClock } from "../helpers/clock.ts";

class FakeConsole implements PseudoConsole {
  readonly pid = 4242;
  readonly written: Uint8Array[] = [];
  readonly resizes: Array<[number, number]> = [];
  kills = 0;
  closes = 0;
  private readonly events = new EventEmitter();
  constructor(
    readonly file: string,
    readonly args: string[],
    readonly options: { cols: number; rows: number; cwd: string; env: Record<string, string> },
  ) {}
  onData(listener: (bytes: Uint8Array) => void) {
    this.events.on("data", listener);
    return { dispose: () => void this.events.off("data", listener) };
  }
  onExit(listener: (event: { exitCode: number }) => void) {
    this.events.on("exit", listener);
    return { dispose: () => void this.events.off("exit", listener) };
  }
  write(bytes: Uint8Array) {
    this.written.push(bytes.slice());
  }
  resize(cols: number, rows: number) {
    this.resizes.push([cols, rows]);
  }
  /** Like TerminateProcess(h, 1): the process ends with exit code 1. */
  kill() {
    this.kills += 1;
    this.exit({ exitCode: 1 });
  }
  async close() {
    this.closes += 1;
    this.emitData("[last frame]"); // ClosePseudoConsole flushes the console's last frame
  }
  emitData(text: string | Uint8Array) {
    this.events.emit("data", typeof text === "string" ? Buffer.from(text) : text);
  }
  exit(event: { exitCode: number }) {
    this.events.emit("exit", event);
  }
}

class FakeWindow extends EventEmitter {
  columns = 100;
  rows = 30;
}

function start(command: string[] = ["cmd.exe", "/c", "dir"], extra: Partial<ConPtyDeps> = {}) {
  let pty: FakeConsole | undefined;
  const output: Array<[string, Uint8Array]> = [];
  const window = new FakeWindow();
  const child = startConPtyChild(
    command,
    {
      cwd: "C:\\work",
      env: { PATH: "C:\\bin", EMPTY: undefined },
      size: { cols: 90, rows: 20 },
      onOutput: (channel, bytes) => output.push([channel, bytes.slice()]),
    },
    {
      spawn: (file, args, options) => (pty = new FakeConsole(file, args, options)),
      which: (name) => `C:\\bin\\${name}`,
      window,
      drain: { quietMs: 20, graceMs: 150 },
      ...extra,
    },
  );
  if (!pty) throw new Error("factory not called");
  return { child, pty, output, window, bytes: () => Buffer.concat(output.map(([, b]) => b)) };
}

describe("windows-conpty logic (fake pseudo console)", () => {
  test("spawns the resolved file with args, size, cwd and the defined environment", () => {
    const { pty } = start();
    expect(pty.file).toBe("C:\\bin\\cmd.exe");
    expect(pty.args).toEqual(["/c", "dir"]);
    expect(pty.options).toMatchObject({ cols: 90, rows: 20, cwd: "C:\\work", env: { PATH: "C:\\bin" } });
    expect("EMPTY" in pty.options.env).toBe(false);
  });

  test("output bytes reach channel pty unchanged, bytes that are not UTF-8 included, the console's last frame last", async () => {
    const { child, pty, output, bytes } = start();
    const odd = Uint8Array.of(0x68, 0xff, 0xfe, 0xe2, 0x9c); // h, two invalid bytes, a cut-off ✓
    pty.emitData(odd);
    pty.emitData("\x1b[31m✓\x1b[0m");
    pty.exit({ exitCode: 0 });
    expect(await child.exited).toEqual({ kind: "exited", code: 0 });
    expect(output.every(([channel]) => channel === "pty")).toBe(true);
    expect(bytes()).toEqual(Buffer.concat([odd, Buffer.from("\x1b[31m✓\x1b[0m[last frame]")]));
    expect(pty.closes).toBe(1);
  });

  test("input bytes go to the console unchanged, split characters and invalid bytes included", () => {
    const { child, pty } = start();
    const check = Buffer.from("✓", "utf8");
    child.write!(Buffer.from("ab"));
    child.write!(check.subarray(0, 1));
    child.write!(check.subarray(1));
    child.write!(Uint8Array.of(0xff));
    expect(Buffer.concat(pty.written)).toEqual(Buffer.concat([Buffer.from("ab✓"), Uint8Array.of(0xff)]));
  });

  test("follows the window's resize events and resize() calls, skipping no-op sizes", async () => {
    const { child, pty, window } = start();
    window.columns = 120;
    window.rows = 40;
    window.emit("resize");
    child.resize!({ cols: 120, rows: 40 });
    child.resize!({ cols: 60, rows: 10 });
    expect(pty.resizes).toEqual([
      [120, 40],
      [60, 10],
    ]);
    pty.exit({ exitCode: 0 });
    await child.exited;
    expect(window.listenerCount("resize")).toBe(0);
  });

  test("output that arrives just after the exit is still delivered, before the console is closed", async () => {
    const { child, pty, bytes } = start();
    pty.emitData("before ");
    pty.exit({ exitCode: 3 });
    pty.emitData("after");
    expect(await child.exited).toEqual({ kind: "exited", code: 3 });
    expect(bytes().toString()).toBe("before after[last frame]");
    expect([pty.kills, pty.closes]).toEqual([0, 1]);
  });

  test("output that never goes quiet after the exit is cut off by closing the console at the grace", async () => {
    const clock = manualClock();
    const { child, pty } = start(undefined, { clock });
    let exit: ChildExit | undefined;
    void child.exited.then((value) => (exit = value));
    pty.exit({ exitCode: 0 });
    // Output every 10 ms of the test's clock, under the 20 ms quiet: only the 150 ms grace ends the drain.
    for (let elapsed = 0; elapsed < 150; elapsed += 10) {
      await Promise.race([clock.waited(), child.exited]);
      expect(exit).toBeUndefined();
      pty.emitData("x");
      clock.advance(10);
    }
    // At the grace: the console is closed rather than waited on again.
    expect(await Promise.race([child.exited, clock.waited().then(() => "still draining")])).toEqual({ kind: "exited", code: 0 });
    expect([pty.kills, pty.closes]).toEqual([0, 1]);
  });

  test("kill() ends the process and the exit names the signal sent (TerminateProcess gives only a code)", async () => {
    const { child, pty } = start();
    child.kill("SIGTERM");
    expect(await child.exited).toEqual({ kind: "signaled", signal: "SIGTERM" });
    expect([pty.kills, pty.closes]).toEqual([1, 1]);
  });

  test("disposing a running child kills it", async () => {
    const { child, pty } = start();
    await child[Symbol.asyncDispose]();
    expect([pty.kills, pty.closes]).toEqual([1, 1]);
    expect(await child.exited).toEqual({ kind: "signaled", signal: "SIGKILL" });
  });

  test("exit mapping", () => {
    expect(exitOf({ exitCode: 7 })).toEqual({ kind: "exited", code: 7 });
    expect(exitOf({ exitCode: 1 }, "SIGTERM")).toEqual({ kind: "signaled", signal: "SIGTERM" });
    expect(exitOf({ exitCode: 0xc000013a })).toEqual({ kind: "signaled", signal: "SIGINT" });
    expect(exitOf({ exitCode: 0xc000013a | 0 })).toEqual({ kind: "signaled", signal: "SIGINT" });
  });

  test("command line: arguments quoted as the C runtime parses them back", () => {
    expect(quoteArgument("plain")).toBe("plain");
    expect(quoteArgument("")).toBe('""');
    expect(quoteArgument("echo out & exit 3")).toBe('"echo out & exit 3"');
    expect(quoteArgument("C:\\Program Files\\x\\")).toBe('"C:\\Program Files\\x\\\\"');
    expect(quoteArgument('say "hi"')).toBe('"say \\"hi\\""');
    expect(quoteArgument('a\\"b')).toBe('"a\\\\\\"b"');
    expect(quoteArgument("no\\space")).toBe("no\\space");
  });

  test("environment block: K=V, NUL-separated, sorted case-insensitively, ended by an empty entry", () => {
    const block = environmentBlock({ b: "2", Path: "C:\\x", A: "1" }).toString("utf16le");
    expect(block).toBe("A=1\0b=2\0Path=C:\\x\0\0");
  });

  test("a command not on PATH is SpawnError ENOENT; a console that cannot start is a plain error", () => {
    expect(() => start(["nope.exe"], { which: () => null })).toThrow(SpawnError);
    const unavailable = () =>
      start(["cmd.exe"], {
        spawn: () => {
          throw new Error("PTY spawn failed");
        },
      });
    expect(unavailable).toThrow("PTY spawn failed");
    try {
      unavailable();
    } catch (error) {
      expect(error).not.toBeInstanceOf(SpawnError);
    }
  });

  test("supports() only Windows with terminals on stdin and stdout", () => {
    const tty = { stdinIsTty: true, stdoutIsTty: true, stderrIsTty: true } as const;
    expect(windowsConPty.supports({ ...tty, platform: "win32" })).toBe(true);
    expect(windowsConPty.supports({ ...tty, platform: "linux" })).toBe(false);
    expect(windowsConPty.supports({ ...tty, stdinIsTty: false, platform: "win32" })).toBe(false);
    expect(windowsConPty.supports({ ...tty, stdoutIsTty: false, platform: "win32" })).toBe(false);
  });
});
