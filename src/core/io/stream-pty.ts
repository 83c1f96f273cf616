/**
 * A pseudo-terminal for one output stream of the child (its stdout or its stderr alone), so the
 * child sees a terminal on that fd exactly when derun has one there (`derun run -- make | tee log`:
 * stderr stays a terminal and gcc keeps colouring its diagnostics). It is nobody's controlling
 * terminal and carries no input: the child keeps derun's session, process group and stdin. Output
 * processing (OPOST) is off, so derun reads exactly the bytes the child wrote and its own terminal
 * processes them once, as without derun.
 *
 * Linux only: sizing the PTY takes ioctl, which is variadic, and bun:ffi cannot call a variadic
 * function correctly on Apple arm64. (Bun.Terminal cannot hand out its slave fd, and spawning with
 * `terminal:` makes the child a session leader on a PTY for all three fds.)
 */
import { ptr, type Pointer, CString } from "bun:ffi";
import fs from "node:fs";
import { libc, libcPty } from "../libc.ts";
import type { WindowSize } from "../transport.ts";

// Linux only (see the module comment), so Linux's numbers.
const TIOCGWINSZ = 0x5413;
const TIOCSWINSZ = 0x5414;
const TCSANOW = 0;
const OPOST = 1;
/** Linux's termios struct is 60 bytes; a generous buffer costs nothing. */
const TERMIOS_BYTES = 256;

/** One output stream's PTY. `master` is derun's end; `slave` is what the child writes to. */
export interface StreamPty {
  /** Non-blocking, so it is polled and reading it can be stopped (./stream-reader.ts). */
  readonly master: number;
  /** Pass as the child's stdout or stderr; derun closes its copy with {@link closeSlave}. */
  readonly slave: number;
  /** Close derun's copy of the slave, so the master reads EIO once the child's copies are gone. */
  closeSlave(): void;
  /**
   * Set the window size (the child sees it on its next TIOCGWINSZ); `true` when it changed. The
   * kernel sends no SIGWINCH for it: this PTY is nobody's controlling terminal.
   */
  resize(size: WindowSize): boolean;
  /** Close both ends still open. Idempotent. */
  close(): void;
}

/**
 * Allocates a PTY for an output stream and sizes it. Throws when no PTY can be allocated.
 *
 * The master is opened as `/dev/ptmx` (what posix_openpt does on Linux) rather than via
 * posix_openpt, because it must be O_NONBLOCK: Bun's fd reader only polls a non-blocking fd (a
 * blocking one failed with ESPIPE), and a blocking read parked in a thread could not be cancelled
 * when a grandchild keeps the slave open. Setting the flag later would need fcntl, which is
 * variadic and so not safely callable through bun:ffi on every ABI.
 */
export function openStreamPty(size: WindowSize | undefined): StreamPty {
  const c = libcPty();
  const { O_RDWR, O_NOCTTY, O_NONBLOCK } = fs.constants;
  const master = fs.openSync("/dev/ptmx", O_RDWR | O_NOCTTY | O_NONBLOCK);
  let slave = -1;
  try {
    if (c.grantpt(master) !== 0 || c.unlockpt(master) !== 0) throw new Error("grantpt/unlockpt failed on /dev/ptmx");
    const name = c.ptsname(master);
    if (name === null) throw new Error("ptsname failed on /dev/ptmx");
    slave = fs.openSync(new CString(name as Pointer).toString(), O_RDWR | O_NOCTTY);
    disableOutputProcessing(slave);
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
    closeSlave,
    resize: (next) => {
      if (!open.master) return false;
      const current = terminalSize(master);
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

/** The window size of this PTY's master, or undefined. */
function terminalSize(fd: number): WindowSize | undefined {
  const winsize = new Uint16Array(4); // ws_row, ws_col, ws_xpixel, ws_ypixel
  if (libc().ioctl(fd, TIOCGWINSZ, ptr(winsize)) !== 0) return undefined;
  const [rows = 0, cols = 0] = winsize;
  return rows > 0 && cols > 0 ? { cols, rows } : undefined;
}

function setWindowSize(master: number, { cols, rows }: WindowSize): void {
  libc().ioctl(master, TIOCSWINSZ, ptr(new Uint16Array([rows, cols, 0, 0])));
}

/** Clear OPOST in c_oflag, the second (4-byte) field of Linux's termios. */
function disableOutputProcessing(fd: number): void {
  const c = libc();
  const termios = new Uint8Array(TERMIOS_BYTES);
  if (c.tcgetattr(fd, ptr(termios)) !== 0) throw new Error("tcgetattr failed on the stream PTY");
  const view = new DataView(termios.buffer);
  view.setUint32(4, view.getUint32(4, true) & ~OPOST, true);
  if (c.tcsetattr(fd, TCSANOW, ptr(termios)) !== 0) throw new Error("tcsetattr failed on the stream PTY");
}
