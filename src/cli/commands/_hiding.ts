/** What `derun hide` and `derun unhide` share: every reference resolved first, then each session marked. */
import { exitWith, type ExitRequest } from "../command.ts";
import { parseFlags, type FlagDefs } from "../flags.ts";
import { openReader } from "../reader.ts";
import { STATE_ROOT_FLAG } from "../state-root.ts";
import { ui } from "../ui.ts";
import { usageError } from "../usage.ts";
import { SESSION_ARG } from "./_session-arg.ts";

export const hidingArgs = {
  ids: { ...SESSION_ARG, description: 'The sessions: ids, "last" (the newest) or "last~N" (the Nth before it).' },
  "state-root": STATE_ROOT_FLAG,
} as const satisfies FlagDefs;

/** Mark (hide) or unmark the sessions named in `flags`; one line each. A missing session: exit 1, nothing marked. */
export async function setHidden(command: "hide" | "unhide", flags: readonly string[]): Promise<ExitRequest> {
  const { values, positionals } = parseFlags(flags, hidingArgs);
  if (positionals.length === 0) throw usageError(`derun ${command} needs at least one session: an id, "last" or "last~N"`);
  const reader = await openReader(values["state-root"]);
  const ids: string[] = [];
  for (const ref of positionals) ids.push(await reader.session(ref));
  const hide = command === "hide";
  for (const id of new Set(ids)) {
    await reader.store.setHidden(id, hide);
    ui.log(`${id}: ${hide ? "hidden from agents (derun mcp); your own commands still read it" : "visible to agents again"}`);
  }
  return exitWith(0);
}
