/**
 * derun's own terminal during a run: taken over (raw mode, the keys typed ahead collected) while a
 * terminal transport runs and derun is in the terminal's foreground; the user's own modes put back
 * while derun is stopped and on every way out, exit included.
 */
import { enterRawMode, inForeground, isTerminal, underJobControl, type RawModeHandle } from "../tty/terminal.ts";
import { hungUp, takeOverTerminal, type TerminalTakeover } from "../tty/terminal-takeover.ts";
import { TerminalModes } from "../os/termios.ts";
import type { UserTerminalState } from "../core/transport.ts";

const NOTHING = new Uint8Array(0);

export class UserTerminal {
  /** stdin is derun's controlling terminal and a shell can stop and continue derun there. */
  readonly jobControl: boolean;
  readonly #isTerminal: boolean;
  #taken: TerminalTakeover | undefined;
  #windowsRaw: RawModeHandle | undefined;
  readonly #restoreAtExit = () => this.restore();

  constructor() {
    this.#isTerminal = isTerminal(0);
    this.jobControl = this.#isTerminal && underJobControl(0);
    process.on("exit", this.#restoreAtExit);
  }

  /** Whether derun's terminal (its stdin) has hung up: the window was closed, the connection lost. */
  hungUp(): boolean {
    return this.#isTerminal && process.platform !== "win32" && hungUp(0);
  }

  /** Whether derun may use its terminal now: always, unless a shell has put it in the background. */
  get inForeground(): boolean {
    return !this.jobControl || inForeground(0);
  }

  /**
   * For a terminal transport, before the child starts: says what the child's terminal needs. The
   * terminal is taken over when the transport reads `typedAhead` (once its own terminal exists, just
   * before the child starts: raw before the child's first output, which must not be post-processed
   * twice), and only when derun is in its foreground; a transport that fails before that leaves the
   * keys in the terminal for the fallback's child. Undefined when stdin is not a terminal.
   */
  takeOverForChild(): UserTerminalState | undefined {
    if (process.platform === "win32") {
      this.#windowsRaw = enterRawMode(0);
      return undefined;
    }
    if (!this.#isTerminal) return undefined;
    const foreground = this.inForeground;
    const modes = TerminalModes.of(0);
    if (!modes) return undefined;
    let typedAhead: Uint8Array | undefined;
    const takeOver = () => (typedAhead ??= foreground ? this.takeOver() : NOTHING);
    return {
      modes: modes.struct,
      get typedAhead() {
        return takeOver();
      },
      jobControl: this.jobControl,
      foreground,
    };
  }

  /** Takes the terminal (back) over: raw mode, with the user's modes as they are now; returns the keys typed ahead. */
  takeOver(): Uint8Array {
    if (this.#taken || !this.#isTerminal || process.platform === "win32") return NOTHING;
    this.#taken = takeOverTerminal(0);
    return this.#taken?.typedAhead ?? NOTHING;
  }

  /** The user's modes while derun holds the terminal (as they were when it took it over); undefined otherwise. */
  get modes(): Uint8Array | undefined {
    return this.#taken?.modes.struct;
  }

  /** Puts the user's modes back. Idempotent. */
  restore(): void {
    this.#taken?.restore();
    this.#taken = undefined;
    this.#windowsRaw?.restore();
    this.#windowsRaw = undefined;
  }

  dispose(): void {
    this.restore();
    process.removeListener("exit", this.#restoreAtExit);
  }
}
