/**
 * What both kinds of the child's PTY (./child-pty.ts) do the same way, given the master's fd: the
 * special characters derun reads, keys typed unechoed, and waiting until the master is drained.
 */
import { constants, openSync } from "node:fs";
import { ptr } from "bun:ffi";
import { libcTtyIo } from "../os/libc.ts";
import { hasInput } from "../os/poll-fd.ts";
import { readable } from "../tty/terminal-takeover.ts";
import { LOCAL, TerminalModes } from "../os/termios.ts";

export const masterControls = (master: number) => ({
  eofChar: () => TerminalModes.of(master)?.char("VEOF"),
  stopKey: () => TerminalModes.of(master)?.stopKey(),
  modes: () => TerminalModes.of(master)?.struct,
  setModes: (modes: Uint8Array) => TerminalModes.from(modes).applyTo(master),
  /** Writes `bytes` with echo off; what the master does not take now goes to `writeRest`. */
  typeUnechoed(bytes: Uint8Array, slave: number | undefined, slavePath: string, writeRest: (rest: Uint8Array) => void) {
    if (bytes.length === 0) return;
    const modes = TerminalModes.of(master);
    const quiet = modes?.has(LOCAL.ECHO) ? modes.without(LOCAL.ECHO | LOCAL.ECHONL) : undefined;
    quiet?.applyTo(master);
    const written = Math.max(0, Number(libcTtyIo().write(master, ptr(bytes), bytes.length)));
    // Polling the slave makes Linux's line discipline take in the pending input now (BSD takes it
    // in during the write), so the echo flags it sees are the quiet ones.
    flushInput(slave, slavePath);
    if (quiet) modes?.applyTo(master);
    if (written < bytes.length) writeRest(bytes.subarray(written));
  },
  /**
   * Bytes written on the slave side are not delivered yet: input on the master, or `pending()` (in
   * that order, as {@link drained} looks). Input counts also once the slave side is gone (POLLHUP
   * with POLLIN: the child's last writes, still to read before EIO). False once the master is closed.
   */
  unread(closed: () => boolean, pending: () => boolean): boolean {
    return !closed() && (hasInput(master) || pending());
  },
  /**
   * Until nothing is left to read on the master and `pending()` is false, at most `maxMs`. The
   * master first: a reader's chunk is `pending` from before its read to its delivery, so both false
   * in this order means all written so far was delivered (poll also takes in what the kernel has
   * not moved to the master yet).
   */
  async drained(closed: () => boolean, pending: () => boolean, maxMs: number) {
    const deadline = performance.now() + maxMs;
    while (this.unread(closed, pending) && performance.now() < deadline) await Bun.sleep(1);
    // The chunk read last is handed over on a later turn of the event loop.
    await new Promise<void>((resolve) => setImmediate(resolve));
  },
});

/** Makes the line discipline process input written on the master (a poll of the slave does it). */
function flushInput(slave: number | undefined, slavePath: string): void {
  if (slave !== undefined) return void readable(slave);
  let fd: number;
  try {
    // O_NOCTTY | O_NONBLOCK: derun must not acquire it as a controlling terminal, nor wait on it.
    fd = openSync(slavePath, constants.O_RDONLY | constants.O_NOCTTY | constants.O_NONBLOCK);
  } catch {
    return;
  }
  readable(fd);
  libcTtyIo().close(fd);
}
