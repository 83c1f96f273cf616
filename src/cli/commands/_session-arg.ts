/** The session reference a command takes as its argument. */
import type { FlagDef } from "../flags.ts";
import { shown, usageError } from "../usage.ts";

export const SESSION_ARG = {
  type: "positional",
  description: 'The session: its id, "last" (the newest) or "last~N" (the Nth before it).',
  complete: "session",
} as const satisfies FlagDef;

/** The single positional of `derun <command> <id>`, or a usage error. */
export function oneSession(command: string, positionals: readonly string[]): string {
  if (positionals.length === 0) throw usageError(`derun ${command} needs a session: an id, "last" or "last~N"`);
  if (positionals.length > 1) throw usageError(`derun ${command} takes one session (got also ${shown(positionals[1]!)})`);
  return positionals[0]!;
}
