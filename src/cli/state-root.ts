/**
 * `--state-root <dir>`: the flag every command that reads or writes sessions takes. It wins over
 * DERUN_STATE_ROOT, which wins over the XDG default (see resolveStateRoot).
 */
import * as path from "node:path";
import { resolveStateRoot } from "../file-store/index.ts";
import { isDerunError } from "../core/errors.ts";
import { checkStateRootForReading, isDirectoryIfThere } from "../safe-fs/index.ts";
import type { FlagDef } from "./flags.ts";
import { shown, usageError } from "./usage.ts";

export const STATE_ROOT_FLAG = {
  type: "string",
  valueHint: "dir",
  complete: "dir",
  description: "Where sessions are kept. Env: DERUN_STATE_ROOT; default $XDG_STATE_HOME/derun, else ~/.local/state/derun.",
} as const satisfies FlagDef;

/** The absolute state root: the flag's value when given, else the environment's. */
export function stateRootFrom(flag: string | undefined, env: Record<string, string | undefined> = process.env): string {
  if (flag === "") throw usageError('option "--state-root" needs a directory');
  return flag === undefined ? resolveStateRoot(env) : path.resolve(flag);
}

/**
 * {@link stateRootFrom} for a command that reads the sessions there (ls, cat, mcp, ...): a file
 * where the root should be is a usage error, not "no sessions recorded", which would hide the
 * mistake. (Writers are refused the same way where they make the state directories.) A root the
 * writer would refuse (another user's, or one others may write) is refused with the writer's
 * message (exit 2): served, it would give an agent what someone else planted there.
 */
export function readableStateRoot(flag: string | undefined): string {
  const root = stateRootFrom(flag);
  if (!isDirectoryIfThere(root)) throw usageError(`state root ${shown(root)} is not a directory`);
  try {
    checkStateRootForReading(root);
  } catch (error) {
    if (isDerunError(error, "unsafe_path")) throw usageError(error.message);
    throw error;
  }
  return root;
}
