/**
 * The bash completion script: commands, their flags, flag values (states, views, directories,
 * files) and recorded sessions, read at each completion from `derun ls --ids` under the state root
 * the command line names (`--state-root`), else the environment's. After `--`, commands and files.
 */
import { brief, type Completion, type CompletionCommand, type CompletionFlag } from "./spec.ts";

const kind = (value: Completion | "any"): string => (typeof value === "string" ? value : value.join(" "));

const flagWords = (command: { readonly flags: readonly CompletionFlag[] }) =>
  command.flags.flatMap((flag) => [`--${flag.long}`, ...flag.short.map((s) => `-${s}`)]).join(" ");

const prevCases = (flags: readonly CompletionFlag[], indent: string): string[] => {
  const valued = flags.filter((flag) => flag.value !== undefined);
  const cases = valued.map(
    (flag) =>
      `${indent}  ${[`--${flag.long}`, ...flag.short.map((s) => `-${s}`)].join("|")}) _derun_values '${kind(flag.value!)}'; return ;;`,
  );
  return cases.length ? [`${indent}case $prev in`, ...cases, `${indent}esac`] : [];
};

/** `derun mcp config <client>`: the subcommand's flags, and its argument once (words: those after the command). */
function subCase(command: CompletionCommand): string[] {
  const sub = command.sub;
  if (sub === undefined) return [];
  return [
    `      if [[ $sub == ${sub.name} ]]; then`,
    ...prevCases(sub.flags, "        "),
    `        if [[ $cur == -* ]]; then _derun_values '${flagWords(sub)}'; return; fi`,
    `        if ((nwords == 1)); then _derun_values '${sub.positional.join(" ")}'; else _derun_values none; fi`,
    "        return",
    "      fi",
  ];
}

function commandCase(command: CompletionCommand): string {
  return [
    `    ${command.name}) # ${brief(command.description).replaceAll("\n", " ")}`,
    ...subCase(command),
    ...prevCases(command.flags, "      "),
    `      if [[ $cur == -* ]]; then _derun_values '${flagWords(command)}'; return; fi`,
    `      _derun_values '${command.positional === undefined ? "none" : kind(command.positional)}'`,
    "      ;;",
  ].join("\n");
}

export function bashScript(spec: readonly CompletionCommand[]): string {
  const takesCommand = spec.filter((command) => command.takesCommand).map((command) => command.name);
  // Flags whose value is the next word: skipped when counting the words after the command.
  const valued = new Set(
    spec
      .flatMap((command) => [...command.flags, ...(command.sub?.flags ?? [])])
      .filter((flag) => flag.value !== undefined && flag.long !== "state-root")
      .flatMap((flag) => [`--${flag.long}`, ...flag.short.map((s) => `-${s}`)]),
  );
  return `# derun completion for bash. Load it in ~/.bashrc with: source <(derun completion bash)
_derun_sessions() {
  local root=()
  [[ -n $_derun_root ]] && root=(--state-root "\${_derun_root/#\\~/$HOME}")
  "\${COMP_WORDS[0]}" ls --ids --limit 200 "\${root[@]}" 2>/dev/null
  printf '%s\\n' last last~1 last~2
}
_derun_values() {
  COMPREPLY=()
  case $1 in
    none | any) ;;
    session) mapfile -t COMPREPLY < <(compgen -W "$(_derun_sessions)" -- "$cur") ;;
    dir) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -d -- "$cur") ;;
    file) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
    command) mapfile -t COMPREPLY < <(compgen -c -- "$cur" | sort -u) ;;
    *) mapfile -t COMPREPLY < <(compgen -W "$1" -- "$cur") ;;
  esac
}
_derun() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]} cmd= sub= nwords=0 dashdash=0 _derun_root= i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case \${COMP_WORDS[i]} in
      --) dashdash=$i; break ;;
      --state-root) _derun_root=\${COMP_WORDS[i+1]}; ((i++)) ;;
      ${[...valued].join(" | ")}) ((i++)) ;;
      -*) ;;
      *)
        if [[ -z $cmd ]]; then cmd=\${COMP_WORDS[i]}
        else ((nwords++)); [[ -z $sub ]] && sub=\${COMP_WORDS[i]}
        fi ;;
    esac
  done
  if ((dashdash)); then
    case $cmd in
      ${takesCommand.join(" | ")}) if ((dashdash == COMP_CWORD - 1)); then _derun_values command; else _derun_values file; fi ;;
      *) COMPREPLY=() ;;
    esac
    return
  fi
  if [[ -z $cmd ]]; then
    _derun_values '${spec.map((command) => command.name).join(" ")} --help --version'
    return
  fi
  case $cmd in
${spec.map(commandCase).join("\n")}
  esac
}
complete -F _derun derun
`;
}
