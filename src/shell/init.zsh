# derun shell integration for zsh: marks each prompt and command in the output (OSC 133 A B C D,
# OSC 633 E and P: https://code.visualstudio.com/docs/terminal/shell-integration) so derun records
# the session command by command. Outside a derun session it does nothing.
# Load it last in ~/.zshrc:   [[ -n $DERUN_SESSION_ID ]] && eval "$(derun shell-init zsh)"
if [[ -o interactive && -n ${DERUN_SESSION_ID-} && -z ${__derun_marks-} ]]; then
  typeset -g __derun_marks=loaded
  if [[ ${DERUN_SHELL_MARKS-} == "$DERUN_SESSION_ID:"* && $DERUN_SHELL_MARKS != "$DERUN_SESSION_ID:$$" ]]; then
    __derun_marks=nested # a shell inside the marked one: its prompts are part of a command's output
  elif (( ${+functions[__vsc_precmd]} )); then
    __derun_marks=vscode # VS Code's integration already marks everything
  else
    export DERUN_SHELL_MARKS="$DERUN_SESSION_ID:$$"
    # iTerm2's integration marks prompts and commands (133): add only the command line and cwd.
    if (( ${+functions[iterm2_precmd]} )); then __derun_marks=lines; else __derun_marks=full; fi
    typeset -g __derun_ran= __derun_cwd_raw= __derun_cwd= __derun_ps1= __derun_ps1_user=

    # $1 with backslashes doubled and ;, control characters as \xHH, into REPLY.
    __derun_escape() {
      emulate -L zsh
      local s=${1//\\/\\\\}
      s=${s//;/\\x3b}
      if [[ $s == *[$'\x01'-$'\x1f\x7f']* ]]; then
        local out= c hex
        for c in ${(s::)s}; do
          if [[ $c == [$'\x01'-$'\x1f\x7f'] ]]; then
            printf -v hex '\\x%02x' "'$c"
            c=$hex
          fi
          out+=$c
        done
        s=$out
      fi
      REPLY=$s
    }

    # First precmd hook: the end of the command that ran, then the cwd for the next one.
    __derun_precmd() {
      local code=$?
      emulate -L zsh
      if [[ -n $__derun_ran ]]; then
        __derun_ran=
        [[ $__derun_marks == full ]] && print -rn -- $'\e]133;D;'$code$'\a'
      fi
      if [[ $PWD != $__derun_cwd_raw ]]; then
        __derun_escape $PWD
        __derun_cwd=$REPLY __derun_cwd_raw=$PWD
      fi
      print -rn -- $'\e]633;P;Cwd='$__derun_cwd$'\a'
    }

    # Last precmd hook: wrap the prompt the user's own hooks left in PS1 (restored in preexec).
    __derun_prompt_end() {
      emulate -L zsh
      [[ $__derun_marks == full && -o prompt_percent ]] || return 0
      if [[ $PS1 != "$__derun_ps1" ]]; then
        __derun_ps1_user=$PS1
        __derun_ps1=$'%{\e]133;A\a%}'$PS1$'%{\e]133;B\a%}'
        PS1=$__derun_ps1
      fi
      # Stay last even when a hook was added after this file was loaded.
      [[ ${precmd_functions[-1]-} == __derun_prompt_end ]] ||
        precmd_functions=(${precmd_functions:#__derun_prompt_end} __derun_prompt_end)
    }

    # Last preexec hook: $1 is the command line as typed.
    __derun_preexec() {
      emulate -L zsh
      [[ -n $__derun_ps1 && $PS1 == "$__derun_ps1" ]] && PS1=$__derun_ps1_user __derun_ps1=
      __derun_ran=1
      __derun_escape $1
      print -rn -- $'\e]633;E;'$REPLY$'\a'
      [[ $__derun_marks == full ]] && print -rn -- $'\e]133;C\a'
    }

    () {
      emulate -L zsh # whatever the user's options (ksh_arrays, sh_word_split), arrays act as arrays
      typeset -ga precmd_functions preexec_functions
      precmd_functions=(__derun_precmd $precmd_functions __derun_prompt_end)
      preexec_functions+=(__derun_preexec)
    }
  fi
fi
