# derun shell integration for fish: marks each prompt and command in the output (OSC 133 A B C D,
# OSC 633 E and P: https://code.visualstudio.com/docs/terminal/shell-integration) so derun records
# the session command by command. Outside a derun session it does nothing.
# Load it last in config.fish:   set -q DERUN_SESSION_ID; and derun shell-init fish | source
if status is-interactive; and test -n "$DERUN_SESSION_ID"; and not set -q __derun_marks
    set -g __derun_marks loaded
    if string match -q -- "$DERUN_SESSION_ID:*" "$DERUN_SHELL_MARKS"; and test "$DERUN_SHELL_MARKS" != "$DERUN_SESSION_ID:$fish_pid"
        set -g __derun_marks nested # a shell inside the marked one: its prompts are part of a command's output
    else if functions -q __vsc_cmd_executed
        set -g __derun_marks vscode # VS Code's integration already marks everything
    else
        set -gx DERUN_SHELL_MARKS "$DERUN_SESSION_ID:$fish_pid"
        # iTerm2's integration marks prompts and commands (133): add only the command line and cwd.
        if functions -q iterm2_status
            set -g __derun_marks lines
        else
            set -g __derun_marks full
        end
        set -g __derun_cwd_raw
        set -g __derun_cwd

        # $argv[1] with backslashes doubled and ;, control characters as \xHH, on one line.
        function __derun_escape
            # collect keeps a multi-line value whole (and adds one newline, escaped and cut below)
            set -l s (string replace -a -- '\\' '\\\\' "$argv[1]" | string collect -N)
            set s (string replace -a -- \n '\x0a' $s)
            set s (string replace -r -- '\\\\x0a$' '' $s)
            set s (string replace -a -- ';' '\x3b' $s)
            if string match -qr -- '[\x01-\x1f\x7f]' $s
                for code in 01 02 03 04 05 06 07 08 09 0b 0c 0d 0e 0f 10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e 1f 7f
                    set s (string replace -a -- (printf "\\x$code") "\\x$code" $s)
                end
            end
            printf '%s' $s
        end

        function __derun_preexec --on-event fish_preexec
            set -g __derun_ran 1
            printf '\e]633;E;%s\a' (__derun_escape $argv[1])
            test $__derun_marks = full; and printf '\e]133;C\a'
        end

        function __derun_postexec --on-event fish_postexec
            set -l code $status
            if set -q __derun_ran
                set -e __derun_ran
                test $__derun_marks = full; and printf '\e]133;D;%s\a' $code
            end
        end

        # The cwd for the next command, then the prompt's start; its end is in fish_prompt below.
        function __derun_prompt --on-event fish_prompt
            if test "$PWD" != "$__derun_cwd_raw"
                set -g __derun_cwd (__derun_escape $PWD)
                set -g __derun_cwd_raw $PWD
            end
            printf '\e]633;P;Cwd=%s\a' $__derun_cwd
            test $__derun_marks = full; and printf '\e]133;A\a'
        end

        if test $__derun_marks = full; and functions -q fish_prompt
            functions -c fish_prompt __derun_user_prompt
            function fish_prompt
                __derun_user_prompt $argv
                printf '\e]133;B\a'
            end
        end
    end
end
