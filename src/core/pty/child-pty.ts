/**
 * The child's PTY, made before the child so the user's own terminal modes and typed-ahead keys are
 * in place when the child starts. On Linux derun opens it itself and reads its master on a thread,
 * a record at a time, only as fast as derun's own terminal takes the output (./ptmx-child-pty.ts):
 * behind a slow terminal the kernel holds the child, and a key or a Ctrl-C never waits behind a
 * chunk already read. Elsewhere it is Bun's Terminal (./bun-terminal-child-pty.ts), which reads in
 * chunks of up to 256 KiB and cannot be paused. termios calls on a master apply to its slave (Linux
 * passes them through; BSD shares one tty).
 */
import type { OutputFlow, WindowSize } from "../transport.ts";
import { openBunTerminalChildPty } from "./bun-terminal-child-pty.ts";
import { openPtmxChildPty } from "./ptmx-child-pty.ts";

export interface ChildPtyOptions {
  readonly size: WindowSize;
  /** The user's terminal modes, copied to the child's terminal; Bun's Terminal's defaults without them. */
  readonly modes?: Uint8Array;
  readonly onData: (bytes: Uint8Array) => void;
  /** The master side reached EOF or EIO: the last slave fd is closed. */
  readonly onEnd: () => void;
  /** derun's terminal's pace: the master is read no faster than it takes the output (Linux). */
  readonly flow?: OutputFlow;
  /** Called while the output waits for `flow` each time the terminal took some (a drain goes on). */
  readonly flowProgress?: () => void;
}

export interface ChildPty {
  /** derun's copy of the slave side, for the child's stdio; see releaseSlave(). */
  readonly slave: number;
  /** The slave side's device path (/dev/pts/N). */
  readonly slavePath: string;
  /** The master is closed: nothing is read or written any more. */
  readonly closed: boolean;
  /** Keys for the child, in order; every byte is taken (queued while the terminal's input is full). Never blocks. */
  write(bytes: Uint8Array): void;
  /** The child's window size (the kernel signals its foreground group). */
  resize(size: WindowSize): void;
  /** Closes the master: the slave side hangs up (as script and sshd do), and reading stops. Idempotent. */
  close(): void;
  /** Writes keys the user's terminal already echoed, with echo off; only while the child is not running. */
  typeUnechoed(bytes: Uint8Array): void;
  /** Drops derun's copy of the slave once the child holds its own, so the master sees the child's end. */
  releaseSlave(): void;
  /** The child exited: read what its terminal holds now, here, if no reader has started yet. */
  readNow(): void;
  /** Resolves once everything written on the slave side so far has been delivered (bounded by `maxMs`). */
  drained(maxMs?: number): Promise<void>;
  /** The child's terminal's EOF character now, unless disabled. */
  eofChar(): number | undefined;
  /** The child's terminal's suspend character now, when it is enabled and keys make signals (ISIG). */
  stopKey(): number | undefined;
}

export function openChildPty(options: ChildPtyOptions): ChildPty {
  return process.platform === "linux" ? openPtmxChildPty(options) : openBunTerminalChildPty(options);
}
