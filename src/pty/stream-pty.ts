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
import { ptr } from "bun:ffi";
import { libc } from "../os/libc.ts";
import type { WindowSize } from "../core/transport.ts";
import { openPtmx } from "./ptmx.ts";

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

/** Allocates a PTY for an output stream (./ptmx.ts) and sizes it. Throws when no PTY can be allocated. */
export function openStreamPty(size: WindowSize | undefined): StreamPty {
  const pty = openPtmx(size);
  try {
    disableOutputProcessing(pty.slave);
  } catch (error) {
    pty.close();
    throw error;
  }
  return pty;
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
