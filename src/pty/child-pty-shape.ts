/**
 * What the child's PTY offers, whichever kind it is (./child-pty.ts chooses): the shapes only, so
 * that the kinds and the chooser need not import each other.
 */
import type { DirectInput, OutputFlow, OutputShow, WindowSize } from "../core/transport.ts";

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
  /** Small chunks may go to derun's terminal from the reader thread itself (Linux; core/transport.ts OutputShow). */
  readonly show?: OutputShow;
}

export interface ChildPty {
  /** derun's copy of the slave side, for the child's stdio; see releaseSlave(). */
  readonly slave: number;
  /** The slave side's device path (/dev/pts/N). */
  readonly slavePath: string;
  /** The master is closed: nothing is read or written any more. */
  readonly closed: boolean;
  /** Which thread reads the master (RunningChild.outputReader), where derun chose one. */
  readonly reader?: string;
  /** Keys for the child, in order; every byte is taken (queued while the terminal's input is full). Never blocks. */
  write(bytes: Uint8Array): void;
  /** Where a thread may write keys itself (a PTY derun opened, whose master it holds). */
  readonly directInput?: DirectInput;
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
  /** Bytes written on the slave side are not delivered yet (read, or not): what {@link drained} waits for. */
  unread(): boolean;
  /** Resolves once everything written on the slave side so far has been delivered (bounded by `maxMs`). */
  drained(maxMs?: number): Promise<void>;
  /** The child's terminal's EOF character now, unless disabled. */
  eofChar(): number | undefined;
  /** The child's terminal's suspend character now, when it is enabled and keys make signals (ISIG). */
  stopKey(): number | undefined;
  /** The child's terminal's modes now (a termios struct's bytes), undefined once closed. */
  modes(): Uint8Array | undefined;
  /** Sets the child's terminal's modes at once; false when that failed. */
  setModes(modes: Uint8Array): boolean;
}
