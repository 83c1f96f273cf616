/**
 * zsh startup files for a ZDOTDIR of derun's. zsh reads `.zshenv`, `.zprofile` (login), `.zshrc`
 * and `.zlogin` (login) from ZDOTDIR; each of ours reads the user's file of the same name with
 * ZDOTDIR set as it would be without derun (unset, or the user's, exported or not, and whatever
 * their `.zshenv` changed it to), then points ZDOTDIR back here for the next file. The marks are
 * loaded after the user's `.zshrc`; the last file read hands ZDOTDIR back for good, so shells
 * started later read the user's files only. The user's `DERUN_ZDOTDIR` is the ZDOTDIR they had.
 */
import { singleQuoted as quote } from "../core/shell-quote.ts";

export function zshStartupFiles(dir: string, snippet: string): Record<string, string> {
  const here = quote(dir);
  // Back to the user's ZDOTDIR; a HISTFILE a global file put under ours goes to theirs.
  const enter = [
    "if (( ${+__derun_zdotdir} )); then",
    "  if [[ -n $__derun_zdotdir_x ]]; then export ZDOTDIR=$__derun_zdotdir; else ZDOTDIR=$__derun_zdotdir; typeset +x ZDOTDIR; fi",
    "else",
    "  unset ZDOTDIR",
    "fi",
    `[[ \${HISTFILE-} == ${here}/* ]] && HISTFILE=\${ZDOTDIR:-$HOME}/\${HISTFILE:t}`,
  ];
  const read = (name: string) => `[[ -f \${ZDOTDIR:-$HOME}/${name} ]] && builtin source \${ZDOTDIR:-$HOME}/${name}`;
  // Remember what the user's file left ZDOTDIR as, and read the next file from here.
  const leave = [
    "if (( ${+ZDOTDIR} )); then",
    "  typeset -g __derun_zdotdir=$ZDOTDIR __derun_zdotdir_x=${(M)${(t)ZDOTDIR}:#*export*}",
    "else",
    "  unset __derun_zdotdir",
    "fi",
    `ZDOTDIR=${here}`,
  ];
  const done = [...enter, "unset __derun_zdotdir __derun_zdotdir_x"];
  const header = "# derun: reads the user's file of the same name, with their ZDOTDIR (see derun's src/shell/_zdotdir.ts).";
  const file = (...lines: string[]) => [header, ...lines, ""].join("\n");
  return {
    ".zshenv": file(
      "if (( ${+DERUN_ZDOTDIR} )); then typeset -g __derun_zdotdir=$DERUN_ZDOTDIR __derun_zdotdir_x=1; unset DERUN_ZDOTDIR; fi",
      ...enter,
      read(".zshenv"),
      ...leave,
    ),
    ".zprofile": file(...enter, read(".zprofile"), ...leave),
    ".zshrc": file(
      ...enter,
      read(".zshrc"),
      ...leave,
      `builtin source ${quote(snippet)}`,
      "if [[ ! -o login ]]; then", // a login shell reads .zlogin next, from here
      ...done.map((line) => `  ${line}`),
      "fi",
    ),
    ".zlogin": file(...enter, read(".zlogin"), ...done),
  };
}
