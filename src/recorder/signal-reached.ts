/**
 * Whether a signal the terminal sent derun's process group can have reached the command (pipe
 * mode, where the command shares that group). Bun hands a signal to derun's handler some time after
 * it came, tens of milliseconds on a loaded machine, so a Ctrl-C typed just before the command
 * started can reach derun's handler after it: the terminal then never gave it to the command, and
 * taking it for one that did lost the key. The command's own state tells (Linux, /proc): one still
 * in derun's group, alive, with the signal's default action, would have died of it, so it did not
 * get it. A command that catches or ignores it, or left the group, may have: that stays unknown.
 */
import { readFileSync } from "node:fs";
import { constants } from "node:os";

/**
 * `false` when `pid` is alive in process group `group` with `signal` at its default action (it cannot
 * have received it); `true` otherwise, and wherever /proc cannot say.
 */
export function signalMayHaveReached(pid: number, group: number, signal: NodeJS.Signals): boolean {
  const signo = constants.signals[signal];
  if (process.platform !== "linux" || signo === undefined) return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the name (which may hold anything and ends at the last ')'): state, ppid, pgrp.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (state === "Z" || state === "X" || Number(pgrp) !== group) return true;
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const bit = 1n << BigInt(signo - 1);
    const mask = (field: string) => BigInt(`0x${new RegExp(`^${field}:\\s*([0-9a-f]+)`, "m").exec(status)?.[1] ?? "ffffffffffffffff"}`);
    return ((mask("SigIgn") | mask("SigCgt")) & bit) !== 0n;
  } catch {
    return true;
  }
}
