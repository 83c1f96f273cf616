/**
 * The shape of one derun command module (src/cli/commands/*.ts), apart from the dispatcher that
 * loads them, so commands and dispatcher import this and never each other.
 */
import type { FlagDefs } from "./flags.ts";

/** How derun should end once a command has cleaned up: an exit status, or death by a signal. */
export type ExitRequest =
  | { readonly kind: "exited"; readonly code: number }
  | { readonly kind: "signaled"; readonly signal: NodeJS.Signals };

/** One entry of the dispatcher's table (./commands/index.ts): a command's description, and its module. */
export interface CommandEntry {
  readonly description: string;
  readonly load: () => Promise<CommandModule>;
}

/** `help` is the dispatcher's own command (main.ts), not a module; help and completion list it. */
export const HELP_DESCRIPTION = "Show the help of derun, or of one command (derun help <command>).";

/** Data the dispatcher hands to a command besides its flags. */
export interface CommandData {
  /** The arguments after `--`, or undefined when there was none. */
  readonly command?: readonly string[];
  /**
   * Every command of derun, by name: `derun completion` reads their flags from here, handed over
   * rather than imported, since the table imports the completion command.
   */
  readonly commands?: Readonly<Record<string, CommandEntry>>;
}

/** One of derun's commands, as its module exports it. */
export interface CommandModule {
  /** The flags `derun <command> --help` lists and ./flags.ts parses (name and description: the index). */
  readonly args?: FlagDefs;
  /** What follows `derun <command>` on help's usage line, when the flags alone do not say it. */
  readonly usage?: string;
  /** Real command lines for help's EXAMPLES, each with an optional `# what it does`. */
  readonly examples?: readonly string[];
  /** The arguments after `--` are a command to run (shell completion offers commands there). */
  readonly takesCommand?: boolean;
  /** Its sub-commands (`derun mcp config`), by name: help lists them, `derun <command> <sub> --help` is the sub's help. */
  readonly subCommands?: Readonly<Record<string, CommandEntry>>;
  /** Runs the command; rejects with a DerunError `usage` for bad flags. */
  run(flags: readonly string[], data: CommandData): Promise<ExitRequest>;
}

/** Exit with `code` (a command's own result). */
export const exitWith = (code: number): ExitRequest => ({ kind: "exited", code });
