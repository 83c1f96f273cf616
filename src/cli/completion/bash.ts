/**
 * The bash completion script: commands, their flags, flag values (states, views, directories,
 * files) and recorded sessions, read at each completion from `derun ls --ids` under the state root
 * the command line names (`--state-root`), else the environment's. After `--`, commands and files.
 */
import { brief, type Completion, type CompletionCommand } from "./spec.ts";

const kind = (value: Completion | "any"): string => (typeof value === "string" ? value : value.join(" "));

const flagWords = (command: CompletionCommand) => command.flags.flatMap((flag) => [`--${flag.long}`, ...flag.short.map((s) => `-${s}`)]).join(" ");

function commandCase(command: CompletionCommand): string {
  const valued = command.flags.filter((flag) => flag.value !== undefined);
  const prevCases = valued.map((flag) => `        ${[`--${flag.long}`, ...flag.short.map((s) => `-${s}`)].join("|")}) _derun_values '${kind(flag.value!)}'; return ;;`);
  return [
    `    ${command.name}) # ${brief(command.description).replaceAll("\n", " ")}`,
    ...(prevCases.length ? ["      case $prev in", ...prevCases, "      esac"] : []),
    `      if [[ $cur == -* ]]; then _derun_values '${flagWords(command)}'; return; fi`,
    `      _derun_values '${command.positional === undefined ? "none" : kind(command.positional)}'`,
    "      ;;",
  ].join("\n");
}

export function bashScript(spec: readonly CompletionCommand[]): string {
  const takesCommand = spec.filter((command) => command.takesCommand).map((command) => command.name);
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
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]} cmd= dashdash=0 _derun_root= i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case \${COMP_WORDS[i]} in
      --) dashdash=$i; break ;;
      --state-root) _derun_root=\${COMP_WORDS[i+1]} ;;
      -*) ;;
      *) [[ -z $cmd ]] && cmd=\${COMP_WORDS[i]} ;;
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
