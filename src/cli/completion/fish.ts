/**
 * The fish completion script: commands, flags and their values with descriptions, recorded
 * sessions from `derun ls --ids` under the `--state-root` given on the line, and after `--` the
 * command to run, completed as fish completes that command.
 */
import { brief, type Completion, type CompletionCommand, type CompletionFlag } from "./spec.ts";

/** `text` as a single-quoted fish word. */
const sq = (text: string) => `'${text.replace(/[\\']/g, (c) => `\\${c}`)}'`;

function values(value: Completion | "any"): string {
  if (value === "session") return "-x -a '(__derun_sessions)'";
  if (value === "dir") return "-x -a '(__fish_complete_directories)'";
  if (value === "file") return "-r -F";
  if (value === "command") return "-x -a '(__fish_complete_command)'";
  if (value === "any") return "-x";
  return `-x -a ${sq(value.join(" "))}`;
}

function flagLine(command: string, flag: CompletionFlag): string {
  const names = [...flag.short.map((s) => `-s ${s}`), `-l ${flag.long}`].join(" ");
  return (
    `complete -c derun -n ${sq(`__derun_using ${command}`)} ` +
    `${names}${flag.value === undefined ? "" : ` ${values(flag.value)}`} -d ${sq(brief(flag.description))}`
  );
}

function commandLines(command: CompletionCommand): string[] {
  const lines = command.flags.map((flag) => flagLine(command.name, flag));
  const sub = command.sub;
  const notInSub = sub ? `; and not __derun_in_sub ${command.name} ${sub.name}` : "";
  // A sub-command is offered with its description (`derun mcp config`).
  const described = sub ? ` -d ${sq(brief(sub.description))}` : "";
  if (command.positional !== undefined)
    lines.push(`complete -c derun -n ${sq(`__derun_using ${command.name}${notInSub}`)} ${values(command.positional)}${described}`);
  if (sub !== undefined) {
    const inSub = `__derun_in_sub ${command.name} ${sub.name}`;
    lines.push(`complete -c derun -n ${sq(`${inSub}; and test (count (__derun_words)) -eq 2`)} ${values(sub.positional)}`);
    for (const flag of sub.flags) lines.push(flagLine(command.name, flag).replace(sq(`__derun_using ${command.name}`), sq(inSub)));
  }
  return lines;
}

export function fishScript(spec: readonly CompletionCommand[]): string {
  const takesCommand = spec.filter((command) => command.takesCommand).map((command) => command.name);
  return `# derun completion for fish. Load it with: derun completion fish | source
# (or save it as ~/.config/fish/completions/derun.fish)
function __derun_sessions
    set -l cmd (commandline -opc)
    set -l root
    if set -l i (contains -i -- --state-root $cmd); and set -q cmd[(math $i + 1)]
        set root --state-root $cmd[(math $i + 1)]
    end
    $cmd[1] ls --ids --limit 200 $root 2>/dev/null
    printf '%s\\n' last last~1 last~2
end
# The command derun was given (the first word that is not a flag), before any --.
function __derun_command
    for word in (commandline -opc)[2..-1]
        test "$word" = -- && return 1
        string match -q -- '-*' $word && continue
        echo $word
        return 0
    end
    return 1
end
# The words that are not flags, after derun and before any --.
function __derun_words
    for word in (commandline -opc)[2..-1]
        test "$word" = -- && return
        string match -q -- '-*' $word && continue
        echo $word
    end
end
# derun <name> <sub> ... (derun mcp config ...).
function __derun_in_sub -a name sub
    set -l words (__derun_words)
    test "$words[1]" = $name; and test "$words[2]" = $sub
end
function __derun_using -a name
    test "$(__derun_command)" = $name; and not contains -- -- (commandline -opc)
end
function __derun_after_dashdash
    set -l cmd (commandline -opc)
    contains -- -- $cmd; and contains -- $cmd[2] ${takesCommand.join(" ")}
end
function __derun_complete_command
    set -l cmd (commandline -opc) (commandline -ct)
    set -l i (contains -i -- -- $cmd)
    __fish_complete_subcommand --commandline $cmd[(math $i + 1)..-1]
end
complete -c derun -f
complete -c derun -n 'not __derun_command; and not __fish_seen_subcommand_from --' -s h -l help -d 'Show the help'
complete -c derun -n 'not __derun_command; and not __fish_seen_subcommand_from --' -s V -l version -d 'Show the version'
${spec.map((command) => `complete -c derun -n 'not __derun_command' -a ${command.name} -d ${sq(brief(command.description))}`).join("\n")}
complete -c derun -n __derun_after_dashdash -x -a '(__derun_complete_command)'
${spec.flatMap(commandLines).join("\n")}
`;
}
