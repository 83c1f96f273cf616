/**
 * windows-conpty: the child runs on a Windows pseudo console through `bun-pty` (an optional
 * dependency). bun-pty dlopens its native library when imported, so it is imported inside `open()`
 * only; importing this module has no side effects. Verified here only through its logic's unit
 * tests with a fake pseudo console; the real ConPTY path runs on Windows alone.
 */
import { defineTransport } from "../../plugin-api/index.ts";
import { startConPtyChild } from "./conpty-child.ts";

export default defineTransport({
  meta: { name: "windows-conpty", description: "Windows pseudo console (ConPTY) through bun-pty" },
  capabilities: { tty: true, resize: true, signals: true, input: "forward" },
  supports: (probe) => probe.platform === "win32" && probe.stdinIsTty && probe.stdoutIsTty,
  open: async (command, options) => {
    const { spawn } = await import("bun-pty");
    return startConPtyChild(command, options, {
      spawn,
      which: (name, where) => Bun.which(name, where),
      ...(process.stdout.isTTY ? { window: process.stdout } : {}),
    });
  },
});
