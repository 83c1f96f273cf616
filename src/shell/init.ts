/**
 * The shell-init snippets (init.bash, init.zsh, init.fish beside this file), embedded in the
 * compiled binary as text. Each marks prompts and commands inside a derun session only (it checks
 * DERUN_SESSION_ID), once per shell however often it is sourced, in the outermost shell only.
 */
import bash from "./init.bash" with { type: "text" };
import fish from "./init.fish" with { type: "text" };
import zsh from "./init.zsh" with { type: "text" };
import autoBash from "./auto.bash" with { type: "text" };
import autoFish from "./auto.fish" with { type: "text" };
import autoZsh from "./auto.zsh" with { type: "text" };

export const SHELL_KINDS = ["bash", "zsh", "fish"] as const;
export type ShellKind = (typeof SHELL_KINDS)[number];

const SNIPPETS: Readonly<Record<ShellKind, string>> = { bash, zsh, fish };

export const isShellKind = (name: string): name is ShellKind => (SHELL_KINDS as readonly string[]).includes(name);

const AUTO: Readonly<Record<ShellKind, string>> = { bash: autoBash, zsh: autoZsh, fish: autoFish };

/**
 * The snippet for `kind`, as `derun shell-init <kind>` prints it; with `auto`, the auto-start
 * (auto.<kind>) before it: outside derun it starts the shell inside `derun shell`, and inside, the
 * snippet marks the commands (the rc file holds this one line, so derun shell loads no other).
 */
export const shellInit = (kind: ShellKind, auto = false): string => (auto ? `${AUTO[kind]}\n${SNIPPETS[kind]}` : SNIPPETS[kind]);

/**
 * Text that shows a startup file already loads the snippet: the documented set-up line
 * (`derun shell-init <kind>`), or the snippet itself pasted in.
 */
export const SNIPPET_SIGNS: readonly string[] = ["derun shell-init", "__derun_marks"];
