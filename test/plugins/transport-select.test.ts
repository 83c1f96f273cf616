import { describe, expect, test } from "bun:test";
import type { LogFields, Logger, LogLevel } from "../../src/core/log.ts";
import { openChild, type TransportSource } from "../../src/recorder/open-child.ts";
import { loadTransport } from "../../src/plugins/loader.ts";
import { chooseTransport } from "../../src/plugins/select.ts";
import { SpawnError, defineTransport, type TerminalProbe, type Transport, type TransportOpenOptions } from "../../src/core/transport.ts";
import { probeTerminal } from "../../src/tty/probe.ts";

const probe = (
  stdinIsTty: boolean,
  stdoutIsTty: boolean,
  platform: NodeJS.Platform = "linux",
  stderrIsTty: boolean = stdoutIsTty,
): TerminalProbe => ({ stdinIsTty, stdoutIsTty, stderrIsTty, platform });

describe("chooseTransport", () => {
  test("an explicit choice wins over the probe", () => {
    expect(chooseTransport("pipe", probe(true, true))).toBe("pipe");
    expect(chooseTransport("./my-plugin.ts", probe(false, false))).toBe("./my-plugin.ts");
  });

  test("terminals on stdin, stdout and stderr select the platform PTY", () => {
    expect(chooseTransport(undefined, probe(true, true, "linux"))).toBe("posix-pty");
    expect(chooseTransport(undefined, probe(true, true, "darwin"))).toBe("posix-pty");
    expect(chooseTransport(undefined, probe(true, true, "win32"))).toBe("windows-conpty");
  });

  test("anything less selects pipe; an empty explicit choice counts as none", () => {
    expect(chooseTransport(undefined, probe(true, false))).toBe("pipe");
    expect(chooseTransport(undefined, probe(false, true))).toBe("pipe");
    // stderr redirected: one PTY would carry it to the screen, so pipe (a PTY per terminal stream)
    expect(chooseTransport(undefined, probe(true, true, "linux", false))).toBe("pipe");
    expect(chooseTransport("", probe(false, false, "win32"))).toBe("pipe");
  });
});

describe("probeTerminal", () => {
  test("reports what the OS says about fds 0-2 (a real PTY vs. pipes)", async () => {
    const script =
      `import { probeTerminal } from ${JSON.stringify(require.resolve("../../src/tty/probe.ts"))}; ` +
      `console.log(JSON.stringify(probeTerminal()));`;
    const viaPipes = Bun.spawn([process.execPath, "-e", script], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    viaPipes.stdin.end();
    const piped = JSON.parse(await new Response(viaPipes.stdout).text());
    expect(piped).toEqual({ stdinIsTty: false, stdoutIsTty: false, stderrIsTty: false, stdoutIsStderr: false, platform: process.platform });

    let output = "";
    const { promise: streamEnd, resolve: endStream } = Promise.withResolvers<void>();
    const viaPty = Bun.spawn([process.execPath, "-e", script], {
      terminal: { cols: 77, rows: 19, data: (_t, bytes) => void (output += new TextDecoder().decode(bytes)), exit: () => endStream() },
    });
    await Promise.all([viaPty.exited, streamEnd]);
    const json = JSON.parse(output.slice(output.indexOf("{")).trim());
    expect(json).toEqual({
      stdinIsTty: true,
      stdoutIsTty: true,
      stderrIsTty: true,
      stdoutIsStderr: true,
      platform: process.platform,
      size: { cols: 77, rows: 19 },
    });
    expect(probeTerminal().platform).toBe(process.platform);
  });
});

describe("openChild", () => {
  const transports: TransportSource = { choose: chooseTransport, load: loadTransport, fallback: "pipe" };
  const here: TerminalProbe = { stdinIsTty: true, stdoutIsTty: true, stderrIsTty: true, platform: process.platform };
  const openWithFallback = (request: { transport: Transport; command: string[]; options: TransportOpenOptions; log: Logger }) =>
    openChild({ ...request, probe: here, transports });
  const records: Array<[LogLevel, string, LogFields | undefined]> = [];
  const log: Logger = { log: (level, event, fields) => void records.push([level, event, fields]), debugEnabled: false };
  const brokenPty = (error: Error) =>
    defineTransport({
      meta: { name: "broken-pty", description: "cannot allocate" },
      capabilities: { tty: true, resize: true, signals: true, input: "forward" },
      supports: () => true,
      open: async () => {
        throw error;
      },
    });
  const options = { cwd: process.cwd(), env: process.env, onOutput: () => {} };

  test("a PTY transport that cannot open falls back to pipe, and says so in the log", async () => {
    const opened = await openWithFallback({ transport: brokenPty(new Error("no pty")), command: ["true"], options, log });
    expect(opened.fellBack).toBe(true);
    expect(opened.transport.meta.name).toBe("pipe");
    expect(await opened.child.exited).toEqual({ kind: "exited", code: 0 });
    expect(records).toContainEqual(["warn", "transport_fallback", { transport_mode: "broken-pty", error: "no pty", fallback: "pipe" }]);
  });

  test("a SpawnError is the command's failure: no fallback", async () => {
    const error = new SpawnError("ENOENT", "command not found: x");
    await expect(openWithFallback({ transport: brokenPty(error), command: ["x"], options, log })).rejects.toBe(error);
  });

  test("a non-PTY transport's failure propagates", async () => {
    const failing = {
      ...brokenPty(new Error("nope")),
      capabilities: { tty: false, resize: false, signals: true, input: "inherit" as const },
    };
    await expect(openWithFallback({ transport: failing, command: ["true"], options, log })).rejects.toThrow("nope");
  });

  test("a transport that does not support this machine is refused, never replaced", async () => {
    const elsewhere = { ...brokenPty(new Error("unused")), supports: () => false };
    await expect(openWithFallback({ transport: elsewhere, command: ["true"], options, log })).rejects.toThrow(
      'transport "broken-pty" cannot run here',
    );
  });

  test("a transport that opens is used as is", async () => {
    const pipe = (await import("../../src/plugins/pipe/index.ts")).default;
    const opened = await openWithFallback({ transport: pipe, command: ["true"], options, log });
    expect(opened.fellBack).toBe(false);
    expect(opened.transport).toBe(pipe);
    await opened.child.exited;
  });
});
