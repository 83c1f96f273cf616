/**
 * `derun shell-init bash|zsh|fish`: the snippet for the shell's rc file that prints the command marks
 * derun records. It does nothing outside a derun session, and keeps the user's prompt and hooks.
 */
import { DerunError } from "../../core/errors.ts";
import { isShellKind, SHELL_KINDS, shellInit } from "../../core/shell/init.ts";
import { exitWith, type CommandData, type ExitRequest } from "../command.ts";

export const args = {
  shell: { type: "positional", required: true, description: `One of ${SHELL_KINDS.join(", ")}.`, complete: SHELL_KINDS },
} as const;

export const examples = ['eval "$(derun shell-init bash)"     # in ~/.bashrc', "derun shell-init fish | source       # in ~/.config/fish/config.fish"];

export async function run(flags: readonly string[], data: CommandData): Promise<ExitRequest> {
  const [kind, extra] = flags;
  if (kind === undefined || !isShellKind(kind)) {
    const got = kind === undefined ? "nothing" : JSON.stringify(kind.slice(0, 100));
    throw new DerunError("usage", `derun shell-init takes one of ${SHELL_KINDS.join(", ")} (got ${got})`);
  }
  if (extra !== undefined || data.command) throw new DerunError("usage", "derun shell-init takes one argument: the shell");
  process.stdout.write(shellInit(kind));
  return exitWith(0);
}
