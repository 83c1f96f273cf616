/**
 * Terminal modes as bytes: a `struct termios` exactly as tcgetattr filled it, read and changed in
 * place. Only the few fields derun touches are named; everything else is carried unchanged, so the
 * modes copied to a child's terminal are the user's own, bit for bit. POSIX only.
 */
import { ptr } from "bun:ffi";
import { libc } from "./libc.ts";

const darwin = process.platform === "darwin";

/** Where the fields are: Linux's tcflag_t is 32 bits with a c_line byte before c_cc, macOS's is 64 bits. */
const LAYOUT = darwin
  ? { bytes: 72, lflag: 24, cc: 32, VEOF: 0, VEOL: 1, VEOL2: 2, VSUSP: 10, disabled: 0xff }
  : { bytes: 60, lflag: 12, cc: 17, VEOF: 4, VEOL: 11, VEOL2: 16, VSUSP: 10, disabled: 0 };

/** c_lflag bits. */
export const LOCAL = darwin ? { ISIG: 0x80, ICANON: 0x100, ECHO: 0x8, ECHONL: 0x10 } : { ISIG: 0x1, ICANON: 0x2, ECHO: 0x8, ECHONL: 0x40 };

/** The special characters derun reads. */
export type ControlChar = "VEOF" | "VEOL" | "VEOL2" | "VSUSP";

const TCSANOW = 0;

/** A terminal's modes, as tcgetattr returned them. */
export class TerminalModes {
  private constructor(readonly bytes: Uint8Array) {}

  /** The modes of terminal `fd`, or undefined when it is not one. */
  static of(fd: number): TerminalModes | undefined {
    const bytes = new Uint8Array(256); // larger than any platform's struct
    return libc().tcgetattr(fd, ptr(bytes)) === 0 ? new TerminalModes(bytes) : undefined;
  }

  /** Modes received as bytes (a transport gets the user's modes this way). */
  static from(bytes: Uint8Array): TerminalModes {
    const copy = new Uint8Array(256);
    copy.set(bytes.subarray(0, 256));
    return new TerminalModes(copy);
  }

  /** Sets these modes on terminal `fd` at once; false when it failed (not a terminal, hung up). */
  applyTo(fd: number): boolean {
    return libc().tcsetattr(fd, TCSANOW, ptr(this.bytes)) === 0;
  }

  /** The struct's own bytes (to hand to a transport). */
  get struct(): Uint8Array {
    return this.bytes.slice(0, LAYOUT.bytes);
  }

  /** c_iflag (its low 32 bits on macOS, where no flag lies higher). */
  get inputFlags(): number {
    return new DataView(this.bytes.buffer).getUint32(0, true);
  }

  get localFlags(): number {
    return new DataView(this.bytes.buffer).getUint32(LAYOUT.lflag, true);
  }

  has(flag: number): boolean {
    return (this.localFlags & flag) !== 0;
  }

  /** A copy with `flags` cleared from c_lflag. */
  without(flags: number): TerminalModes {
    const copy = new TerminalModes(this.bytes.slice());
    new DataView(copy.bytes.buffer).setUint32(LAYOUT.lflag, this.localFlags & ~flags, true);
    return copy;
  }

  /** A copy with the four flag words replaced (Linux's layout: input, output, control, local, 32 bits each). */
  withFlagWords(words: { input: number; output: number; control: number; local: number }): TerminalModes {
    const copy = new TerminalModes(this.bytes.slice());
    const view = new DataView(copy.bytes.buffer);
    [words.input, words.output, words.control, words.local].forEach((word, i) => view.setUint32(i * 4, word >>> 0, true));
    return copy;
  }

  /** c_cflag (Linux's layout). */
  get controlFlags(): number {
    return new DataView(this.bytes.buffer).getUint32(8, true);
  }

  /** The special character, or undefined when it is disabled. */
  char(name: ControlChar): number | undefined {
    const value = this.bytes[LAYOUT.cc + LAYOUT[name]];
    return value === undefined || value === LAYOUT.disabled ? undefined : value;
  }

  /** The key that stops the foreground job (VSUSP) while keys make signals (ISIG); else undefined. */
  stopKey(): number | undefined {
    return this.has(LOCAL.ISIG) ? this.char("VSUSP") : undefined;
  }

  /** A copy with the special character disabled. */
  withoutChar(name: ControlChar): TerminalModes {
    const copy = new TerminalModes(this.bytes.slice());
    copy.bytes[LAYOUT.cc + LAYOUT[name]] = LAYOUT.disabled;
    return copy;
  }

  /** A copy in raw mode (cfmakeraw: no echo, no line editing, no signal keys, no output processing). */
  raw(): TerminalModes {
    const copy = new TerminalModes(this.bytes.slice());
    libc().cfmakeraw(ptr(copy.bytes));
    return copy;
  }
}
