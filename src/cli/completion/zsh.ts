/**
 * The zsh completion script (`_arguments`): commands with their descriptions, flags with theirs,
 * flag values, recorded sessions from `derun ls --ids` under the `--state-root` given on the line,
 * and after `--` the command to run, completed as zsh completes a command line.
 */
import { brief, type Completion, type CompletionCommand, type CompletionFlag } from "./spec.ts";

/** `text` inside a single-quoted zsh word. */
const sq = (text: string) => text.replaceAll("'", "'\\''");
/** A description for `[...]` or `name:description`: one line, no brackets. */
const describe = (text: string) => sq(brief(text).replace(/[[\]]/g, (c) => (c === "[" ? "(" : ")")));

function action(value: Completion | "any"): string {
  if (value === "session") return "_derun_sessions";
  if (value === "dir") return "_directories";
  if (value === "file") return "_files";
  if (value === "command") return "_command_names";
  if (value === "any") return " ";
  return `(${value.join(" ")})`;
}

function flagSpec(flag: CompletionFlag): string {
  const names = [...flag.short.map((s) => `-${s}`), `--${flag.long}`];
  const value = flag.value === undefined ? "" : `:${flag.long}:${action(flag.value)}`;
  const help = `[${describe(flag.description)}]`;
  if (names.length === 1) return `'${names[0]}${flag.value === undefined ? "" : "="}${help}${sq(value)}'`;
  const spelled = names.map((name) => `${name}${flag.value === undefined ? "" : name.startsWith("--") ? "=" : "+"}`);
  return `'(${names.join(" ")})'{${spelled.join(",")}}'${help}${sq(value)}'`;
}

function commandCase(command: CompletionCommand): string {
  const specs = command.flags.map(flagSpec);
  // A sub-command is offered as one, with its description (`derun mcp config`).
  if (command.sub !== undefined) specs.push(`'1:command:((${command.sub.name}\\:"${describe(command.sub.description)}"))'`);
  else if (command.positional !== undefined)
    specs.push(`'*:${command.positional === "session" ? "session" : "argument"}:${sq(action(command.positional))}'`);
  const dashdash = command.takesCommand
    ? [
        "        local sep=${words[(i)--]}",
        "        if (( sep < CURRENT )); then words=(${words[sep+1,-1]}); (( CURRENT -= sep )); _normal; return; fi",
      ]
    : [];
  const sub = command.sub;
  if (sub === undefined)
    return [`      ${command.name})`, ...dashdash, `        _arguments -s ${specs.join(" \\\n          ")} && ret=0`, "        ;;"].join(
      "\n",
    );
  // `derun mcp config <client>`: past the subcommand's name, its own flags and one argument.
  const subSpecs = [...sub.flags.map(flagSpec), `'1:${sub.name} argument:(${sub.positional.join(" ")})'`];
  return [
    `      ${command.name})`,
    `        if (( CURRENT > 2 )) && [[ $words[2] == ${sub.name} ]]; then`,
    "          shift words; (( CURRENT-- ))",
    `          _arguments -s ${subSpecs.join(" \\\n            ")} && ret=0`,
    "        else",
    `          _arguments -s ${specs.join(" \\\n            ")} && ret=0`,
    "        fi",
    "        ;;",
  ].join("\n");
}

export function zshScript(spec: readonly CompletionCommand[]): string {
  const commands = spec.map((command) => `    '${command.name}:${describe(command.description)}'`).join("\n");
  return `#compdef derun
# derun completion for zsh. Load it in ~/.zshrc, after compinit, with: source <(derun completion zsh)
_derun_sessions() {
  local root=\${opt_args[--state-root]} expl
  local -a ids
  ids=(\${(f)"$(\${derun_cmd:-derun} ls --ids --limit 200 \${root:+--state-root} \${root/#\\~/$HOME} 2>/dev/null)"} last last~1 last~2)
  _wanted sessions expl 'recorded session' compadd -a ids
}
_derun() {
  local curcontext=$curcontext state state_descr line derun_cmd=$words[1] ret=1
  typeset -A opt_args
  _arguments -C \\
    '(- 1 *)'{-h,--help}'[show the help]' \\
    '(- 1 *)'{-V,--version}'[show the version]' \\
    '1: :->command' \\
    '*:: :->argument' && return 0
  case $state in
    command)
      local -a commands
      commands=(
${commands}
      )
      _describe -t commands 'derun command' commands && ret=0
      ;;
    argument)
      curcontext=\${curcontext%:*:*}:derun-$words[1]:
      case $words[1] in
${spec.map(commandCase).join("\n")}
      esac
      ;;
  esac
  return ret
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then _derun "$@"; else compdef _derun derun; fi
`;
}
