# derun shell integration for bash (4.4 or newer): marks each prompt and command in the output
# (OSC 133 A B C D, OSC 633 E and P: https://code.visualstudio.com/docs/terminal/shell-integration)
# so derun records the session command by command. Outside a derun session it does nothing.
# Load it last in ~/.bashrc:   [ -n "$DERUN_SESSION_ID" ] && eval "$(derun shell-init bash)"
#
# C comes from PS0 (printed once a line is read, before it runs), so no DEBUG trap is taken and a
# loop typed at the prompt runs at full speed. The command line is the history entry: a line not
# saved there (ignorespace, HISTIGNORE, history off) has none. But under ignoredups or ignoreboth
# without HISTIGNORE a line not saved is taken to repeat the last entry: right for a repeated
# command (common), wrong for one hidden by a leading space under ignoreboth (bash cannot tell).
if [[ -n "${DERUN_SESSION_ID-}" && $- == *i* && -z "${__derun_marks-}" ]] &&
  ((BASH_VERSINFO[0] > 4 || (BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] >= 4))); then
  __derun_marks=loaded
  if [[ "${DERUN_SHELL_MARKS-}" == "$DERUN_SESSION_ID:"* && "$DERUN_SHELL_MARKS" != "$DERUN_SESSION_ID:$$" ]]; then
    __derun_marks=nested # a shell inside the marked one: its prompts are part of a command's output
  elif declare -F __vsc_prompt_cmd >/dev/null; then
    __derun_marks=vscode # VS Code's integration already marks everything
  else
    export DERUN_SHELL_MARKS="$DERUN_SESSION_ID:$$"
    # iTerm2's integration marks prompts and commands (133): add only the command line and cwd.
    if declare -F iterm2_prompt_mark >/dev/null; then __derun_marks=lines; else __derun_marks=full; fi
    __derun_ran=
    __derun_hist_next=
    __derun_cwd_raw=
    __derun_cwd=
    __derun_ps1=
    __derun_prompts=0 __derun_prompts_seen=-1 __derun_warned=0
    # Arithmetic in a subscript is evaluated by the shell itself (the substitution is a subshell):
    # the command runs, and whether a prompt ran the hooks since the last one is noted, warned once.
    __derun_ps0='${__derun_nil[__derun_ran=1]-}$(__derun_preexec \!)${__derun_nil[__derun_warned|=__derun_prompts==__derun_prompts_seen,__derun_prompts_seen=__derun_prompts]-}'

    # $1 with backslashes doubled and ;, control characters as \xHH, into __derun_escaped.
    __derun_escape() {
      local s=${1//\\/\\\\}
      s=${s//;/\\x3b}
      if [[ $s == *[$'\001'-$'\037\177']* ]]; then
        local LC_ALL=C out= c i
        for ((i = 0; i < ${#s}; i++)); do
          c=${s:i:1}
          [[ $c == [$'\001'-$'\037\177'] ]] && printf -v c '\\x%02x' "'$c"
          out+=$c
        done
        s=$out
      fi
      __derun_escaped=$s
    }

    # First in PROMPT_COMMAND: the end of the command that ran, then the cwd for the next one.
    __derun_precmd() {
      local code=$?
      if [[ -n $__derun_ran ]]; then
        __derun_ran=
        [[ $__derun_marks == full ]] && printf '\e]133;D;%s\a' "$code"
      fi
      if [[ $PWD != "$__derun_cwd_raw" ]]; then
        __derun_escape "$PWD"
        __derun_cwd=$__derun_escaped
        __derun_cwd_raw=$PWD
      fi
      printf '\e]633;P;Cwd=%s\a' "$__derun_cwd"
      return "$code"
    }

    # Last in PROMPT_COMMAND: (re)wrap the prompt the user's own hooks left in PS1, arm PS0.
    __derun_prompt_end() {
      local code=$?
      ((__derun_prompts++))
      # PROMPT_COMMAND='...' at the prompt replaced element 0, and __derun_precmd with it: put it
      # back in front. The command that replaced it ends here, its status unknown.
      if [[ ${PROMPT_COMMAND@a} == *a* && "${PROMPT_COMMAND[*]}" != *__derun_precmd* ]]; then
        PROMPT_COMMAND[0]=__derun_precmd${PROMPT_COMMAND[0]:+$'\n'${PROMPT_COMMAND[0]}}
        if [[ -n $__derun_ran ]]; then
          __derun_ran=
          [[ $__derun_marks == full ]] && printf '\e]133;D\a'
        fi
      fi
      __derun_hist_next=${HISTCMD-}
      if [[ $__derun_marks == full && ${PS1-} != "$__derun_ps1" ]]; then
        __derun_ps1='\[\e]133;A\a\]'${PS1-}'\[\e]133;B\a\]'
        PS1=$__derun_ps1
      fi
      if shopt -q promptvars; then
        [[ ${PS0-} == *"$__derun_ps0" ]] || PS0+=$__derun_ps0
      else
        PS0=${PS0-} PS0=${PS0%"$__derun_ps0"} # without promptvars PS0 would show the expansion as text
      fi
      return "$code"
    }

    # Run from PS0 in a command substitution: prints the command line (E), then C. Once, when no
    # prompt ran derun's hooks since the last command (PROMPT_COMMAND replaced as a whole), says so.
    __derun_preexec() {
      if ((__derun_prompts == __derun_prompts_seen && !__derun_warned)); then
        printf '%s\n' "derun: commands from here on are not recorded: PROMPT_COMMAND no longer runs derun's hooks (it was replaced). To record them again: PROMPT_COMMAND=\"__derun_precmd\"\$'\\n'\"\$PROMPT_COMMAND\"\$'\\n'__derun_prompt_end" >&2
      fi
      local entry= entry_text='^ *[0-9]+[ *] (.*)$' repeat=
      # A repeated line is not saved under ignoredups: take it to be the entry it repeats.
      [[ ${HISTCONTROL-} == *ignoredups* || ${HISTCONTROL-} == *ignoreboth* ]] && [[ -z ${HISTIGNORE-} ]] && repeat=1
      # Saved iff PS0's history number ($1) is the one the prompt offered.
      if [[ -o history ]] && [[ $1 == "$__derun_hist_next" || -n $repeat ]]; then
        entry=$(HISTTIMEFORMAT= builtin history 1)
      fi
      if [[ $entry =~ $entry_text ]]; then
        __derun_escape "${BASH_REMATCH[1]}"
        printf '\e]633;E;%s\a' "$__derun_escaped"
      fi
      [[ $__derun_marks == full ]] && printf '\e]133;C\a'
    }

    unset __derun_nil
    if ((BASH_VERSINFO[0] > 5 || (BASH_VERSINFO[0] == 5 && BASH_VERSINFO[1] >= 1))); then
      # An array (bash 5.1+), __derun_precmd at the head of element 0, which is what `PROMPT_COMMAND=...`
      # at the prompt replaces (with the user's old hook, as without derun): __derun_prompt_end, an
      # element of its own, then puts __derun_precmd back.
      PROMPT_COMMAND=("__derun_precmd${PROMPT_COMMAND[0]:+$'\n'${PROMPT_COMMAND[0]}}" "${PROMPT_COMMAND[@]:1}" __derun_prompt_end)
    elif [[ -v PROMPT_COMMAND && ${PROMPT_COMMAND@a} == *a* ]]; then
      PROMPT_COMMAND=(__derun_precmd "${PROMPT_COMMAND[@]}" __derun_prompt_end)
    else
      PROMPT_COMMAND=__derun_precmd${PROMPT_COMMAND:+$'\n'$PROMPT_COMMAND}$'\n'__derun_prompt_end
    fi
  fi
fi
