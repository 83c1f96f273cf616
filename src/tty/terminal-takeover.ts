/**
 * Taking over the user's terminal for a PTY child: raw mode, and the keys typed before it.
 *
 * What the user typed (or a harness queued) before derun switched to raw mode is still in the
 * terminal's input queue, already echoed, in canonical form: whole lines, a partial line, and EOF
 * marks. A mark turns into a NUL byte once the mode is switched, so the queue is read in two steps:
 * the complete lines and EOFs while still canonical (in the user's modes, then once more with VEOF
 * and ECHO disabled, so no new mark can slip in between and nothing is echoed that the terminal
 * would not echo), then the partial line once raw. A key arriving in the short second step is not
 * echoed (no terminal mode can echo every key but the EOF character). The result reaches the child once, in order,
 * each EOF as the EOF character, and unechoed (the terminal echoed it already).
 */
import { ptr } from "bun:ffi";
import { libcTtyIo } from "../os/libc.ts";
import { POLL, pollNow } from "../os/poll-fd.ts";
import { LOCAL, TerminalModes } from "../os/termios.ts";

const LF = 0x0a;
/** More than a canonical line can hold (4095 bytes on Linux, 1024 on macOS). */
const LINE_BYTES = 8192;
/** A bound on reads, for a terminal that keeps reporting input. */
const MAX_READS = 256;

export interface TerminalTakeover {
  /** The modes the terminal had: copied to the child's terminal, put back by restore(). */
  readonly modes: TerminalModes;
  /** Keys typed before the switch, in order, EOFs as the VEOF character; already echoed. */
  readonly typedAhead: Uint8Array;
  /** Puts the modes back. Idempotent. */
  restore(): void;
}

/** Switches terminal `fd` to raw mode, collecting what was typed ahead. Undefined when it is not a terminal. */
export function takeOverTerminal(fd = 0): TerminalTakeover | undefined {
  const modes = TerminalModes.of(fd);
  if (!modes) return undefined;
  const typed: number[] = [];
  if (modes.has(LOCAL.ICANON)) {
    // In the user's own modes first: what is queued now was echoed as the terminal echoes it.
    readCanonical(fd, modes, typed);
    // Then VEOF off (a mark arriving now would turn into a NUL once raw) and ECHO off with it: with
    // VEOF off, an EOF arriving in this short window is an ordinary control character, echoed as
    // `^D`, where the terminal echoes no EOF at all.
    if (modes.withoutChar("VEOF").without(LOCAL.ECHO).applyTo(fd)) readCanonical(fd, modes, typed);
  }
  if (!modes.raw().applyTo(fd)) {
    modes.applyTo(fd);
    return undefined;
  }
  for (const bytes of readAvailable(fd)) typed.push(...bytes);
  let restored = false;
  return {
    modes,
    typedAhead: Uint8Array.from(typed),
    restore() {
      if (restored) return;
      restored = true;
      modes.applyTo(fd);
    },
  };
}

/** The complete lines and EOF marks queued in canonical mode. */
function readCanonical(fd: number, modes: TerminalModes, typed: number[]): void {
  const eof = modes.char("VEOF");
  const ends = new Set([LF, modes.char("VEOL"), modes.char("VEOL2")].filter((c) => c !== undefined));
  for (const line of readAvailable(fd)) {
    typed.push(...line);
    // A read of nothing is an EOF mark; a line not ended by NL, EOL or EOL2 was ended by one.
    const last = line.at(-1);
    if (eof !== undefined && (last === undefined || !ends.has(last))) typed.push(eof);
  }
}

/** Each read(2) that returns at once: one line each in canonical mode, what there is in raw mode. */
function* readAvailable(fd: number): Generator<Uint8Array> {
  const buffer = new Uint8Array(LINE_BYTES);
  for (let reads = 0; reads < MAX_READS && readable(fd); reads++) {
    const count = Number(libcTtyIo().read(fd, ptr(buffer), buffer.length));
    if (count < 0) return;
    yield buffer.slice(0, count);
  }
}

/** Whether a read of `fd` returns at once with input (a hung-up terminal does not count). */
export function readable(fd: number): boolean {
  const revents = pollNow(fd, POLL.IN);
  return (revents & POLL.IN) !== 0 && (revents & POLL.HUP) === 0;
}

/** Whether terminal `fd` has hung up (its other side is gone). */
export function hungUp(fd: number): boolean {
  return (pollNow(fd, POLL.IN) & POLL.HUP) !== 0;
}
