/**
 * windows-conpty's logic, driven by a fake pseudo console. ConPTY itself (bun-pty on Windows)
 * cannot run on Linux, so this checks what derun adds around it: output re-encoding, input
 * decoding, resize following, the post-exit drain and its force-close, exit mapping, start errors.
 * The real bun-pty pairing is verified only on Windows.
 */
import { describe, expect, test } from "bun:test";
import { EventEmitter } from "node:events";
import windowsConPty from "../../src/plugins/windows-conpty/index.ts";
import { exitOf, startConPtyChild, type ConPtyDeps, type PseudoConsole } from "../../src/plugins/windows-conpty/conpty-child.ts";
import { SpawnError, type ChildExit } from "../../src/core/transport.ts";
import { manualClock } from "../helpers/clock.ts";

class FakeConsole implements PseudoConsole {
  readonly pid = 4242;
  readonly written: string[] = [];
  readonly resizes: Array<[number, number]> = [];
  readonly kills: Array<string | undefined> = [];
  private readonly events = new EventEmitter();
  constructor(
    readonly file: string,
    readonly args: string[],
    readonly options: { cols: number; rows: number; cwd: string; env: Record<string, string> },
  ) {}
  onData(listener: (data: string) => void) {
    this.events.on("data", listener);
    return { dispose: () => void this.events.off("data", listener) };
  }
  onExit(listener: (event: { exitCode: number; signal?: number | string }) => void) {
    this.events.on("exit", listener);
    return { dispose: () => void this.events.off("exit", listener) };
  }
  write(data: string) {
    this.written.push(data);
  }
  resize(cols: number, rows: number) {
    this.resizes.push([cols, rows]);
  }
  /** Like bun-pty: kill() closes the console and reports exit code 0 with the signal. */
  kill(signal?: string) {
    this.kills.push(signal);
    this.exit({ exitCode: 0, ...(signal ? { signal } : {}) });
  }
  emitData(text: string) {
    this.events.emit("data", text);
  }
  exit(event: { exitCode: number; signal?: number | string }) {
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
    { cwd: "C:\\work", env: { PATH: "C:\\bin", EMPTY: undefined }, size: { cols: 90, rows: 20 }, onOutput: (channel, bytes) => output.push([channel, bytes.slice()]) },
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

  test("string output is re-encoded to UTF-8 bytes on channel pty", async () => {
    const { child, pty, output, bytes } = start();
    pty.emitData("héllo ─ ");
    pty.emitData("\x1b[31m✓\x1b[0m");
    pty.exit({ exitCode: 0 });
    expect(await child.exited).toEqual({ kind: "exited", code: 0 });
    expect(output.every(([channel]) => channel === "pty")).toBe(true);
    expect(bytes()).toEqual(Buffer.from("héllo ─ \x1b[31m✓\x1b[0m", "utf8"));
  });

  test("input bytes become text, a character split across writes included", () => {
    const { child, pty } = start();
    const check = Buffer.from("✓", "utf8");
    child.write!(Buffer.from("ab"));
    child.write!(check.subarray(0, 1));
    child.write!(check.subarray(1));
    expect(pty.written.join("")).toBe("ab✓");
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

  test("output that arrives just after the exit is still delivered, without a force-close", async () => {
    const { child, pty, bytes } = start();
    pty.emitData("before ");
    pty.exit({ exitCode: 3 });
    pty.emitData("after");
    expect(await child.exited).toEqual({ kind: "exited", code: 3 });
    expect(bytes().toString()).toBe("before after");
    expect(pty.kills).toEqual([]);
  });

  test("output that never goes quiet after the exit is cut off by a force-close", async () => {
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
    // At the grace: the console is force-closed rather than waited on again.
    expect(await Promise.race([child.exited, clock.waited().then(() => "still draining")])).toEqual({ kind: "exited", code: 0 });
    expect(pty.kills).toEqual([undefined]);
  });

  test("kill() reports the signal it sent (bun-pty itself reports exit code 0)", async () => {
    const { child, pty } = start();
    child.kill("SIGTERM");
    expect(await child.exited).toEqual({ kind: "signaled", signal: "SIGTERM" });
    expect(pty.kills).toEqual(["SIGTERM"]);
  });

  test("disposing a running child kills it", async () => {
    const { child, pty } = start();
    await child[Symbol.asyncDispose]();
    expect(pty.kills).toEqual(["SIGKILL"]);
  });

  test("exit mapping", () => {
    expect(exitOf({ exitCode: 7 })).toEqual({ kind: "exited", code: 7 });
    expect(exitOf({ exitCode: 0, signal: 15 })).toEqual({ kind: "signaled", signal: "SIGTERM" });
    expect(exitOf({ exitCode: 0, signal: "SIGHUP" })).toEqual({ kind: "signaled", signal: "SIGHUP" });
    expect(exitOf({ exitCode: 0xc000013a | 0 })).toEqual({ kind: "signaled", signal: "SIGINT" });
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
