/**
 * The shell-init snippets (init.bash, init.zsh, init.fish beside this file), embedded in the
 * compiled binary as text. Each marks prompts and commands inside a derun session only (it checks
 * DERUN_SESSION_ID), once per shell however often it is sourced, in the outermost shell only.
 */
import bash from "./init.bash" with { type: "text" };
import fish from "./init.fish" with { type: "text" };
import zsh from "./init.zsh" with { type: "text" };

export const SHELL_KINDS = ["bash", "zsh", "fish"] as const;
export type ShellKind = (typeof SHELL_KINDS)[number];

const SNIPPETS: Readonly<Record<ShellKind, string>> = { bash, zsh, fish };

export const isShellKind = (name: string): name is ShellKind => (SHELL_KINDS as readonly string[]).includes(name);

/** The snippet for `kind`, as `derun shell-init <kind>` prints it. */
export const shellInit = (kind: ShellKind): string => SNIPPETS[kind];

/**
 * Text that shows a startup file already loads the snippet: the documented set-up line
 * (`derun shell-init <kind>`), or the snippet itself pasted in.
 */
export const SNIPPET_SIGNS: readonly string[] = ["derun shell-init", "__derun_marks"];
