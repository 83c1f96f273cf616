/**
 * The child's PTY, made before the child so the user's own terminal modes and typed-ahead keys are
 * in place when the child starts. On Linux derun opens it itself and reads its master on a thread,
 * a record at a time, only as fast as derun's own terminal takes the output (./ptmx-child-pty.ts):
 * behind a slow terminal the kernel holds the child, and a key or a Ctrl-C never waits behind a
 * chunk already read. Elsewhere it is Bun's Terminal (./bun-terminal-child-pty.ts), which reads in
 * chunks of up to 256 KiB and cannot be paused. termios calls on a master apply to its slave (Linux
 * passes them through; BSD shares one tty).
 */
import { openBunTerminalChildPty } from "./bun-terminal-child-pty.ts";
import type { ChildPty, ChildPtyOptions } from "./child-pty-shape.ts";
import { openPtmxChildPty } from "./ptmx-child-pty.ts";

export type { ChildPty, ChildPtyOptions } from "./child-pty-shape.ts";

export function openChildPty(options: ChildPtyOptions): ChildPty {
  return process.platform === "linux" ? openPtmxChildPty(options) : openBunTerminalChildPty(options);
}
