# derun auto-start (derun shell-init fish --auto): with this line last in config.fish,
#   derun shell-init fish --auto | source
# each interactive fish on a terminal starts inside `derun shell`, once: never in a shell already
# inside derun, never for a script, `fish -c`, ssh host cmd, scp or rsync (not interactive), nor on
# a dumb terminal. DERUN_AUTO=0 opts one terminal out. If derun cannot start the shell, this one
# goes on as it would without the line; once the recorded shell ends, so does this one, with its status.
if set -q DERUN_SESSION_ID
    # Inside: tell the shell that started derun that its shell did start.
    if set -q DERUN_AUTO_PARENT
        kill -USR1 $DERUN_AUTO_PARENT 2>/dev/null
        set -e DERUN_AUTO_PARENT
    end
else if status is-interactive; and test "$DERUN_AUTO" != 0; and test -n "$TERM"; and test "$TERM" != dumb; and isatty stdout; and isatty stderr; and command -q derun
    set -g __derun_auto_inside
    set -g __derun_auto_signaled
    function __derun_auto_started --on-signal USR1
        set -g __derun_auto_inside 1
    end
    # derun says so (USR2) when the recorded shell died of a signal: $status alone cannot tell 129 from SIGHUP.
    function __derun_auto_signal --on-signal USR2
        set -g __derun_auto_signaled 1
    end
    # This is sourced from a pipe (`... | source`): the terminal is /dev/tty, not stdin. SHLVL as this
    # shell found it: the recorded shell stands in for this one and counts itself (through env: fish
    # exports its own SHLVL over a `SHLVL=...` given to a command).
    DERUN_AUTO_PARENT=$fish_pid env SHLVL=(math $SHLVL - 1) derun shell -- (status fish-path 2>/dev/null; or echo fish) </dev/tty
    set -g __derun_auto_status $status
    functions -e __derun_auto_started __derun_auto_signal
    # `exit` would end only the sourcing here: the shell is replaced by one that ends as the recorded
    # one did, by its signal or with its status.
    set -l __derun_auto_signo 0
    test -n "$__derun_auto_signaled"; and test $__derun_auto_status -gt 128; and set __derun_auto_signo (math $__derun_auto_status - 128)
    test -n "$__derun_auto_inside"; and exec sh -c 'test "$1" -gt 0 && kill -"$1" $$; exit "$2"' sh $__derun_auto_signo $__derun_auto_status
    set -e __derun_auto_inside __derun_auto_signaled __derun_auto_status
end
