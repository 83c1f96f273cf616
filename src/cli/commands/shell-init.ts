/**
 * `derun shell-init bash|zsh|fish`: the snippet for the shell's rc file that prints the command marks
 * derun records. It does nothing outside a derun session, and keeps the user's prompt and hooks.
 * With --auto it also starts each interactive shell inside `derun shell` (src/shell/auto.*).
 */
import { DerunError } from "../../core/errors.ts";
import { isShellKind, SHELL_KINDS, shellInit } from "../../shell/init.ts";
import { exitWith, type CommandData, type ExitRequest } from "../command.ts";

export const args = {
  shell: { type: "positional", required: true, description: `One of ${SHELL_KINDS.join(", ")}.`, complete: SHELL_KINDS },
  auto: { type: "boolean", description: "Also start each interactive shell inside derun shell, once (DERUN_AUTO=0 opts a terminal out)." },
} as const;

export const examples = [
  'eval "$(derun shell-init bash)"            # in ~/.bashrc',
  "derun shell-init fish | source              # in ~/.config/fish/config.fish",
  'eval "$(derun shell-init bash --auto)"     # last in ~/.bashrc: every terminal recorded',
];

export async function run(flags: readonly string[], data: CommandData): Promise<ExitRequest> {
  const auto = flags.includes("--auto");
  const [kind, extra] = flags.filter((flag) => flag !== "--auto");
  if (kind === undefined || !isShellKind(kind)) {
    const got = kind === undefined ? "nothing" : JSON.stringify(kind.slice(0, 100));
    throw new DerunError("usage", `derun shell-init takes one of ${SHELL_KINDS.join(", ")} (got ${got})`);
  }
  if (extra !== undefined || data.command) throw new DerunError("usage", "derun shell-init takes one argument: the shell");
  process.stdout.write(shellInit(kind, auto));
  return exitWith(0);
}
