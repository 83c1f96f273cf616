# derun auto-start (derun shell-init zsh --auto): with this line last in ~/.zshrc,
#   eval "$(derun shell-init zsh --auto)"
# each interactive zsh on a terminal starts inside `derun shell`, once: never in a shell already
# inside derun, never for a script, `zsh -c`, ssh host cmd, scp or rsync (not interactive), nor on
# a dumb terminal. DERUN_AUTO=0 opts one terminal out. If derun cannot start the shell, this one
# goes on as it would without the line; once the recorded shell ends, so does this one, with its status.
if [[ -n "${DERUN_SESSION_ID-}" ]]; then
  # Inside: tell the shell that started derun that its shell did start.
  if [[ -n "${DERUN_AUTO_PARENT-}" ]]; then
    kill -USR1 "$DERUN_AUTO_PARENT" 2>/dev/null
    unset DERUN_AUTO_PARENT
  fi
elif [[ -o interactive && "${DERUN_AUTO-}" != 0 && "${TERM:-dumb}" != dumb && -t 0 && -t 1 ]] && (( ${+commands[derun]} )); then
  typeset -g __derun_auto_inside=
  trap '__derun_auto_inside=1' USR1
  DERUN_AUTO_PARENT=$$ derun shell -- "${commands[zsh]:-zsh}"
  typeset -g __derun_auto_status=$?
  trap - USR1
  [[ -n $__derun_auto_inside ]] && exit "$__derun_auto_status"
  unset __derun_auto_inside __derun_auto_status
fi
