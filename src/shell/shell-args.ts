/**
 * What a shell's arguments mean for loading the marks: an interactive shell that reads its startup
 * files (and whether it is a login shell), or something derun must leave alone (a command string,
 * a script, "no startup files"), with the reason. Allow-lists: an argument not known to be
 * harmless leaves the shell as it is.
 */
import type { ShellKind } from "./init.ts";

export type ShellArgs =
  | {
      readonly interactive: true;
      readonly login: boolean;
      /** The arguments to pass on (login flags and an rc file bash is told to read are taken out for bash). */
      readonly rest: readonly string[];
      /** bash `--rcfile`/`--init-file`: read instead of ~/.bashrc. */
      readonly rcfile?: string;
      /** bash `--noprofile`. */
      readonly noProfile?: boolean;
    }
  | { readonly interactive: false; readonly reason: string };

const quote = (arg: string) => JSON.stringify(arg.length > 40 ? `${arg.slice(0, 40)}...` : arg);
const leave = (reason: string): ShellArgs => ({ interactive: false, reason });

/** Letters that may appear in a `-abc` cluster: none for a command string (c), a script on stdin (s), or "no rc". */
const CLUSTER: Readonly<Record<ShellKind, RegExp>> = {
  bash: /^[-+][abefhiklmnptuvxBCEHPT]+$/,
  zsh: /^[-+][abdeghiklmnprtuvwxyBCDEFGHIJKLMNOPQRTUVWXYZ0-9]+$/,
  fish: /^-[ilP]+$/,
};
/** Options followed by a value. */
const WITH_VALUE: Readonly<Record<ShellKind, RegExp>> = {
  bash: /^[-+][oO]$/,
  zsh: /^[-+]o$/,
  fish: /^(-[Cdof]|--(init-command|debug|debug-output|features))$/,
};
const FLAGS: Readonly<Record<ShellKind, readonly string[]>> = {
  bash: ["--verbose", "--noediting"],
  zsh: ["--login", "--interactive"],
  fish: ["--login", "--interactive", "--private"],
};
/** zsh option names that switch the startup files (`-o norcs`, `+o globalrcs`, ...). */
const ZSH_RC_OPTIONS = /^(no_?)?(global_?)?rcs$/i;

export function readShellArgs(kind: ShellKind, args: readonly string[]): ShellArgs {
  let login = false;
  let rcfile: string | undefined;
  let noProfile = false;
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (WITH_VALUE[kind].test(arg)) {
      const value = args[++i];
      if (value === undefined) return leave(`${quote(arg)} without its value`);
      if (kind === "zsh" && ZSH_RC_OPTIONS.test(value)) return leave(`${arg} ${quote(value)} switches the startup files`);
      rest.push(arg, value);
    } else if (kind === "bash" && (arg === "--rcfile" || arg === "--init-file")) {
      rcfile = args[++i];
      if (rcfile === undefined) return leave(`${arg} without its file`);
    } else if (kind === "bash" && arg === "--noprofile") noProfile = true;
    else if (kind === "bash" && arg === "--login")
      login = true; // derun reads the profile files itself
    else if (FLAGS[kind].includes(arg) || (kind === "fish" && /^--(init-command|debug|debug-output|features)=/.test(arg))) {
      if (arg === "--login") login = true;
      rest.push(arg);
    } else if (CLUSTER[kind].test(arg)) {
      if (arg.startsWith("-") && arg.includes("l")) login = true;
      const kept = kind === "bash" && arg.startsWith("-") ? arg.replaceAll("l", "") : arg;
      if (kept.length > 1) rest.push(kept);
    } else return leave(`${quote(arg)} is not an argument of an interactive ${kind} that reads its startup files`);
  }
  return { interactive: true, login, rest, ...(rcfile === undefined ? {} : { rcfile }), ...(noProfile ? { noProfile } : {}) };
}
