/**
 * The user's terminal: raw mode with an exact restore, and the window size.
 *
 * On POSIX this calls libc through bun:ffi (tcgetattr/cfmakeraw/tcsetattr, ioctl TIOCGWINSZ) rather
 * than `process.stdin.setRawMode`, because we must put back exactly the termios the user had (their
 * own `stty` settings included), not a "cooked" default. On Windows the console mode is owned by the
 * runtime, so `setRawMode` is the faithful choice there.
 */
import { ptr } from "bun:ffi";
import { closeSync, constants, openSync } from "node:fs";
import type { WindowSize } from "../core/transport.ts";
import { libc, libcTtyIo } from "../os/libc.ts";

/** A termios struct is 60 bytes on Linux and 72 on macOS; a generous buffer fits both. */
const TERMIOS_BYTES = 256;
const TCSANOW = 0;
/** Linux's number; other platforms do not call ioctl (see readWindowSize). */
const TIOCGWINSZ = 0x5413;

/**
 * Whether `fd` is a terminal (a terminal ioctl succeeds on it; /dev/null, a character device, is
 * not one). On POSIX this is libc's isatty rather than node:tty's, whose module graph (node:net,
 * node:stream) would load on every start.
 */
export function isTerminal(fd: number): boolean {
  if (process.platform === "win32") return (require("node:tty") as typeof import("node:tty")).isatty(fd);
  return libc().isatty(fd) === 1;
}

/** Restores the terminal to what it was before {@link enterRawMode}. Idempotent. */
export interface RawModeHandle {
  restore(): void;
}

/**
 * Put terminal `fd` in raw mode (no echo, no line editing, no signal keys, no output processing), so
 * every byte the user types reaches the child's own PTY line discipline untouched, and the child's
 * output is not post-processed twice. Returns undefined when `fd` is not a terminal.
 */
export function enterRawMode(fd = 0): RawModeHandle | undefined {
  if (!isTerminal(fd)) return undefined;
  if (process.platform === "win32") return enterRawModeWindows(fd);
  const c = libc();
  const saved = new Uint8Array(TERMIOS_BYTES);
  if (c.tcgetattr(fd, ptr(saved)) !== 0) return undefined;
  const raw = saved.slice();
  c.cfmakeraw(ptr(raw));
  if (c.tcsetattr(fd, TCSANOW, ptr(raw)) !== 0) return undefined;
  let restored = false;
  return {
    restore() {
      if (restored) return;
      restored = true;
      c.tcsetattr(fd, TCSANOW, ptr(saved));
    },
  };
}

function enterRawModeWindows(fd: number): RawModeHandle | undefined {
  if (fd !== 0 || !process.stdin.isTTY) return undefined;
  process.stdin.setRawMode(true);
  let restored = false;
  return {
    restore() {
      if (restored) return;
      restored = true;
      process.stdin.setRawMode(false);
    },
  };
}

/** The window size of terminal `fd`, or undefined when it is not a terminal. */
export function readWindowSize(fd = 1): WindowSize | undefined {
  if (!isTerminal(fd)) return undefined;
  if (process.platform === "win32") {
    const stream = fd === 2 ? process.stderr : process.stdout;
    return stream.columns && stream.rows ? { cols: stream.columns, rows: stream.rows } : undefined;
  }
  // ioctl is variadic: bun:ffi calls it correctly where variadic arguments travel in registers
  // (Linux x64 and arm64), not on Apple arm64. Elsewhere ask stty, which reports the size of the
  // terminal on its stdin (the runtime's own columns/rows go stale after a resize).
  if (process.platform !== "linux") return sttySize(fd);
  const winsize = new Uint16Array(4); // ws_row, ws_col, ws_xpixel, ws_ypixel
  if (libc().ioctl(fd, TIOCGWINSZ, ptr(winsize)) !== 0) return undefined;
  const [rows = 0, cols = 0] = winsize;
  return rows > 0 && cols > 0 ? { cols, rows } : undefined;
}

/** The size of terminal `fd` as `stty size` reports it (the path used where ioctl cannot be called). */
export function sttySize(fd: number): WindowSize | undefined {
  // The same terminal opened anew: the runtime will not hand its own stdout/stderr to a child's stdin.
  let terminal: number;
  try {
    terminal = openSync(`/dev/fd/${fd}`, constants.O_RDONLY | constants.O_NOCTTY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const result = Bun.spawnSync(["stty", "size"], { stdin: terminal, stdout: "pipe", stderr: "ignore" });
    const [rows = 0, cols = 0] = result.stdout.toString().trim().split(/\s+/).map(Number);
    return rows > 0 && cols > 0 ? { cols, rows } : undefined;
  } finally {
    closeSync(terminal);
  }
}

/**
 * Whether derun runs in the foreground process group of a terminal on one of its standard streams.
 * Then the keyboard's signals (Ctrl-C, Ctrl-\\) and a hang-up are sent by the kernel to the whole
 * group, so a child that shares derun's group receives them without derun's help.
 */
export function inForegroundOfTerminal(): boolean {
  if (process.platform === "win32") return false;
  const c = libc();
  const group = c.getpgrp();
  return [0, 1, 2].some((fd) => isTerminal(fd) && c.tcgetpgrp(fd) === group);
}

/**
 * Whether terminal `fd` is derun's controlling terminal and derun a job that a shell can stop and
 * continue there: then a command that stops must stop derun too, and derun may be started or put
 * in the background. A session leader (derun under `script`, `ssh -t`, a test's PTY) is not one.
 */
export function underJobControl(fd = 0): boolean {
  if (process.platform === "win32") return false;
  return libc().tcgetpgrp(fd) >= 0 && libcTtyIo().getsid(0) !== process.pid;
}

/** Whether derun's process group is the foreground of its controlling terminal `fd`. */
export function inForeground(fd = 0): boolean {
  if (process.platform === "win32") return true;
  const c = libc();
  return c.tcgetpgrp(fd) === c.getpgrp();
}
