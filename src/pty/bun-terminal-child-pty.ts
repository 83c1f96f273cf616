/**
 * The child's PTY as Bun's Terminal (its reader and writer carry the bytes): where derun cannot
 * open and size a PTY itself (macOS: ioctl is variadic, and bun:ffi cannot call a variadic function
 * correctly on Apple arm64). It reads the master in chunks of up to 256 KiB and cannot be paused,
 * so behind a slow terminal a key can wait for one such chunk (docs/fidelity.md).
 *
 * Bun's Terminal API sets only four flag words, not the special characters (intr, erase, eof), and
 * names none of its fds, so they are found among derun's open fds: the master side is the one
 * whose input flags are the marker just set through that API (fd numbers alone mislead: another
 * terminal's may be closing and freeing them at the same time), the slave side is the device its
 * ptsname() names.
 */
import { CString, type Pointer } from "bun:ffi";
import { fstatSync, openSync, readdirSync, statSync } from "node:fs";
import { libcPty, libcTtyIo } from "../os/libc.ts";
import { TerminalModes } from "../os/termios.ts";
import type { ChildPty, ChildPtyOptions } from "./child-pty-shape.ts";
import { masterControls } from "./master-controls.ts";

const darwin = process.platform === "darwin";

export function openBunTerminalChildPty(options: ChildPtyOptions): ChildPty {
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
  const controls = masterControls(master);
  const slavePath = slavePathOf(master);
  let slaveHeld = true;
  // Terminal.write accepts every byte and buffers what the PTY cannot take yet (flushing it on
  // writability), so a large paste is never truncated; the return value is not a short count.
  const write = (bytes: Uint8Array) => {
    if (!terminal.closed) terminal.write(bytes);
  };
  return {
    slave,
    slavePath,
    get closed() {
      return terminal.closed;
    },
    write,
    resize: (size) => {
      if (!terminal.closed) terminal.resize(size.cols, size.rows);
    },
    close: () => terminal.close(),
    typeUnechoed(bytes) {
      if (!terminal.closed) controls.typeUnechoed(bytes, slaveHeld ? slave : undefined, slavePath, write);
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
    // Bun's Terminal reads as soon as anything is there.
    readNow: () => {},
    unread: () =>
      controls.unread(
        () => terminal.closed,
        () => false,
      ),
    drained: (maxMs = 200) =>
      controls.drained(
        () => terminal.closed,
        () => false,
        maxMs,
      ),
    eofChar: controls.eofChar,
    stopKey: controls.stopKey,
    modes: controls.modes,
    setModes: controls.setModes,
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
