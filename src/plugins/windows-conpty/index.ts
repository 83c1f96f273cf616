/**
 * windows-conpty: the child runs on a Windows pseudo console, created through kernel32 directly
 * (conpty.ts; docs/windows.md says why not bun-pty). kernel32 is bound inside `open()` only:
 * importing this module has no side effects. Its logic is unit-tested with a fake console
 * (test/plugins/windows-conpty.test.ts); the real console runs under Wine in the Windows lane
 * (test/windows/conpty.test.ts) and on the release workflow's Windows runner.
 */
import { defineTransport } from "../../plugin-api/index.ts";
import { startConPtyChild } from "./conpty-child.ts";

export default defineTransport({
  meta: { name: "windows-conpty", description: "Windows pseudo console (ConPTY)" },
  capabilities: { tty: true, resize: true, signals: true, input: "forward" },
  supports: (probe) => probe.platform === "win32" && probe.stdinIsTty && probe.stdoutIsTty,
  open: async (command, options) => {
    const { spawnPseudoConsole } = await import("./conpty.ts");
    return startConPtyChild(command, options, {
      spawn: spawnPseudoConsole,
      // The working directory before PATH, as Windows and Bun.spawn (the pipe transport) search.
      which: (name, where) => Bun.which(name, { PATH: `${where.cwd};${where.PATH}`, cwd: where.cwd }),
      ...(process.stdout.isTTY ? { window: process.stdout } : {}),
    });
  },
});
