/**
 * The child's PTY: Bun's Terminal (its reader and writer carry the bytes), made before the child so
 * the user's own terminal modes and typed-ahead keys are in place when the child starts.
 *
 * Bun's Terminal API sets only four flag words, not the special characters (intr, erase, eof), and
 * names none of its fds, so they are found among derun's open fds: the master side is the one
 * whose input flags are the marker just set through that API (fd numbers alone mislead: another
 * terminal's may be closing and freeing them at the same time), the slave side is the device its
 * ptsname() names. termios calls on a master apply to its slave (Linux passes them through; BSD
 * shares one tty).
 */
import { CString, ptr, type Pointer } from "bun:ffi";
import { constants, fstatSync, openSync, readdirSync, statSync } from "node:fs";
import { libcPty, libcTtyIo } from "../libc.ts";
import { readable } from "../terminal-takeover.ts";
import { LOCAL, TerminalModes } from "../termios.ts";
import type { WindowSize } from "../transport.ts";

const darwin = process.platform === "darwin";

export interface ChildPtyOptions {
  readonly size: WindowSize;
  /** The user's terminal modes, copied to the child's terminal; Bun's defaults without them. */
  readonly modes?: Uint8Array;
  readonly onData: (bytes: Uint8Array) => void;
  /** The master side reached EOF or EIO: the last slave fd is closed. */
  readonly onEnd: () => void;
}

export interface ChildPty {
  readonly terminal: Bun.Terminal;
  /** derun's copy of the slave side, for the child's stdio; see releaseSlave(). */
  readonly slave: number;
  /** The slave side's device path (/dev/pts/N). */
  readonly slavePath: string;
  /** Writes keys the user's terminal already echoed, with echo off; only while the child is not running. */
  typeUnechoed(bytes: Uint8Array): void;
  /** Drops derun's copy of the slave once the child holds its own, so the master sees the child's end. */
  releaseSlave(): void;
  /** Resolves once everything written on the slave side so far has been read (bounded by `maxMs`). */
  drained(maxMs?: number): Promise<void>;
  /** The child's terminal's EOF character now, unless disabled. */
  eofChar(): number | undefined;
  /** The child's terminal's suspend character now, when it is enabled and keys make signals (ISIG). */
  stopKey(): number | undefined;
}

export function openChildPty(options: ChildPtyOptions): ChildPty {
  const terminal = new Bun.Terminal({
    cols: options.size.cols,
    rows: options.size.rows,
    data: (_terminal, bytes) => options.onData(bytes),
    exit: () => options.onEnd(),
  });
  const { master, slave } = findSides(terminal);
  if (master === undefined || slave === undefined) {
    terminal.close();
    throw new Error("posix-pty: cannot find the fds of Bun's terminal");
  }
  if (options.modes && !TerminalModes.from(options.modes).applyTo(master)) {
    terminal.close();
    throw new Error("posix-pty: cannot set the terminal modes of the child's PTY");
  }
  let slaveHeld = true;
  return {
    terminal,
    slave,
    slavePath: slavePathOf(master),
    typeUnechoed(bytes) {
      if (bytes.length === 0 || terminal.closed) return;
      const modes = TerminalModes.of(master);
      const quiet = modes?.has(LOCAL.ECHO) ? modes.without(LOCAL.ECHO | LOCAL.ECHONL) : undefined;
      quiet?.applyTo(master);
      const written = Math.max(0, Number(libcTtyIo().write(master, ptr(bytes), bytes.length)));
      // Polling the slave makes Linux's line discipline take in the pending input now (BSD takes it
      // in during the write), so the echo flags it sees are the quiet ones.
      flushInput(master, slaveHeld ? slave : undefined);
      if (quiet) modes?.applyTo(master);
      if (written < bytes.length) terminal.write(bytes.subarray(written));
    },
    releaseSlave() {
      if (!slaveHeld) return;
      slaveHeld = false;
      // Bun owns the fd number and closes it with the Terminal: point it at /dev/null rather than
      // close it, or Bun would later close whatever reused the number.
      const devNull = openSync("/dev/null", "r");
      libcTtyIo().dup2(devNull, slave);
      libcTtyIo().close(devNull);
    },
    async drained(maxMs = 200) {
      const deadline = performance.now() + maxMs;
      while (!terminal.closed && readable(master) && performance.now() < deadline) await Bun.sleep(1);
      // The chunk Bun read last is handed to `onData` on a later turn of the event loop.
      await new Promise<void>((resolve) => setImmediate(resolve));
    },
    eofChar: () => TerminalModes.of(master)?.char("VEOF"),
    stopKey() {
      const modes = TerminalModes.of(master);
      return modes?.has(LOCAL.ISIG) ? modes.char("VSUSP") : undefined;
    },
  };
}

/** Input flags no terminal has by chance: IGNBRK|INLCR|IGNCR|IUCLC|IXOFF|IUTF8, a few at once. */
const MARKER = darwin ? 0x1 | 0x40 | 0x80 | 0x400 | 0x4000 : 0x1 | 0x40 | 0x80 | 0x200 | 0x1000 | 0x4000;

function findSides(terminal: Bun.Terminal): { master?: number; slave?: number } {
  const c = libcPty();
  const original = terminal.inputFlags;
  terminal.inputFlags = MARKER;
  const fds = readdirSync("/dev/fd").map(Number);
  const master = fds.find((fd) => c.ptsname(fd) !== null && TerminalModes.of(fd)?.inputFlags === MARKER);
  terminal.inputFlags = original;
  if (master === undefined) return {};
  const device = statSync(slavePathOf(master)).rdev;
  const slave = fds.find((fd) => fd !== master && c.ptsname(fd) === null && fstatOrUndefined(fd)?.rdev === device);
  return { master, slave };
}

function fstatOrUndefined(fd: number) {
  try {
    return fstatSync(fd);
  } catch {
    return undefined;
  }
}

function slavePathOf(master: number): string {
  const name = libcPty().ptsname(master);
  if (name === null) throw new Error("posix-pty: the PTY has no slave name");
  return new CString(name as Pointer).toString();
}

/** Makes the line discipline process input written on `master` (a poll of the slave does it). */
function flushInput(master: number, slave: number | undefined): void {
  if (slave !== undefined) return void readable(slave);
  let fd: number;
  try {
    // O_NOCTTY | O_NONBLOCK: derun must not acquire it as a controlling terminal, nor wait on it.
    fd = openSync(slavePathOf(master), constants.O_RDONLY | constants.O_NOCTTY | constants.O_NONBLOCK);
  } catch {
    return;
  }
  readable(fd);
  libcTtyIo().close(fd);
}
