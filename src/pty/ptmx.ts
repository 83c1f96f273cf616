/**
 * A pseudo-terminal pair opened by derun itself from `/dev/ptmx`, with a non-blocking master, so
 * that derun decides when and how much of it is read (a reader thread, a read at a time, paced by
 * derun's own terminal) and can stop reading it at any moment. Bun's Terminal reads its master on
 * its own, in chunks of up to 256 KiB, and cannot be paused.
 *
 * Linux only: sizing the PTY takes ioctl, which is variadic, and bun:ffi cannot call a variadic
 * function correctly on Apple arm64.
 */
import { CString, ptr, type Pointer } from "bun:ffi";
import fs from "node:fs";
import { libc, libcPty } from "../os/libc.ts";
import type { WindowSize } from "../core/transport.ts";

// Linux only (see the module comment), so Linux's numbers.
const TIOCGWINSZ = 0x5413;
const TIOCSWINSZ = 0x5414;

export interface Ptmx {
  /** derun's end, O_NONBLOCK: polled and read by derun, written with keys. */
  readonly master: number;
  /** The other end, opened O_NOCTTY: for the child's stdio; derun closes its copy with {@link closeSlave}. */
  readonly slave: number;
  /** The slave side's device path (/dev/pts/N). */
  readonly slavePath: string;
  /** Close derun's copy of the slave, so the master reads EIO once the child's copies are gone. Idempotent. */
  closeSlave(): void;
  /** Set the window size; `true` when it changed (the kernel then signals the slave's foreground group, if any). */
  resize(size: WindowSize): boolean;
  /** Close both ends still open. Idempotent. */
  close(): void;
}

/**
 * Opens a PTY pair sized `size`. Throws when none can be allocated. The master is opened as
 * `/dev/ptmx` (what posix_openpt does on Linux) rather than through posix_openpt, because it must
 * be O_NONBLOCK: setting the flag later would take fcntl, which is variadic too.
 */
export function openPtmx(size: WindowSize | undefined): Ptmx {
  const c = libcPty();
  const { O_RDWR, O_NOCTTY, O_NONBLOCK } = fs.constants;
  const master = fs.openSync("/dev/ptmx", O_RDWR | O_NOCTTY | O_NONBLOCK);
  let slave = -1;
  let slavePath: string;
  try {
    if (c.grantpt(master) !== 0 || c.unlockpt(master) !== 0) throw new Error("grantpt/unlockpt failed on /dev/ptmx");
    const name = c.ptsname(master);
    if (name === null) throw new Error("ptsname failed on /dev/ptmx");
    slavePath = new CString(name as Pointer).toString();
    slave = fs.openSync(slavePath, O_RDWR | O_NOCTTY);
    if (size) setWindowSize(master, size);
  } catch (error) {
    if (slave >= 0) fs.closeSync(slave);
    fs.closeSync(master);
    throw error;
  }
  const open = { master: true, slave: true };
  const closeSlave = () => {
    if (open.slave) fs.closeSync(slave);
    open.slave = false;
  };
  return {
    master,
    slave,
    slavePath,
    closeSlave,
    resize: (next) => {
      if (!open.master) return false;
      const current = windowSize(master);
      if (current?.cols === next.cols && current.rows === next.rows) return false;
      setWindowSize(master, next);
      return true;
    },
    close: () => {
      closeSlave();
      if (open.master) fs.closeSync(master);
      open.master = false;
    },
  };
}

/** The window size of a PTY (either end), or undefined. */
function windowSize(fd: number): WindowSize | undefined {
  const winsize = new Uint16Array(4); // ws_row, ws_col, ws_xpixel, ws_ypixel
  if (libc().ioctl(fd, TIOCGWINSZ, ptr(winsize)) !== 0) return undefined;
  const [rows = 0, cols = 0] = winsize;
  return rows > 0 && cols > 0 ? { cols, rows } : undefined;
}

function setWindowSize(master: number, { cols, rows }: WindowSize): void {
  libc().ioctl(master, TIOCSWINSZ, ptr(new Uint16Array([rows, cols, 0, 0])));
}
