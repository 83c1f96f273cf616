/** The session reference a command takes as its argument. */
import type { FlagDef } from "../flags.ts";
import { shown, usageError } from "../usage.ts";

export const SESSION_ARG = {
  type: "positional",
  description: 'The session: its id, "last" (the newest) or "last~N" (the Nth before it).',
  complete: "session",
} as const satisfies FlagDef;

/** The single positional of `derun <command> <id>` (or none, when `optional`), else a usage error. */
export function oneSession(command: string, positionals: readonly string[]): string;
export function oneSession(command: string, positionals: readonly string[], optional: true): string | undefined;
export function oneSession(command: string, positionals: readonly string[], optional = false): string | undefined {
  if (positionals.length === 0 && optional) return undefined;
  if (positionals.length === 0) throw usageError(`derun ${command} needs a session: an id, "last" or "last~N"`);
  if (positionals.length > 1) throw usageError(`derun ${command} takes one session (got also ${shown(positionals[1]!)})`);
  return positionals[0]!;
}

/** `--command N|last`: one command of a `derun shell` session. */
export const COMMAND_FLAG = {
  type: "string",
  valueHint: "n|last",
  complete: ["last"],
  description: 'Only one command of a `derun shell` session: its number (derun ls <id> --commands) or "last".',
} as const satisfies FlagDef;

/** The value of `--command` as the queries take it. */
export function commandSelector(value: string | undefined): number | "last" | undefined {
  if (value === undefined || value === "last") return value;
  if (/^[1-9][0-9]{0,14}$/.test(value)) return Number(value);
  throw usageError(`option "--command" takes a command number or "last" (got ${shown(value)})`);
}
