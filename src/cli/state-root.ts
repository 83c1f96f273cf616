/**
 * `--state-root <dir>`: the flag every command that reads or writes sessions takes. It wins over
 * DERUN_STATE_ROOT, which wins over the XDG default (see resolveStateRoot).
 */
import * as path from "node:path";
import { resolveStateRoot } from "../core/file-store/index.ts";
import type { FlagDef } from "./flags.ts";
import { usageError } from "./usage.ts";

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
