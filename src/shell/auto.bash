# derun auto-start (derun shell-init bash --auto): with this line last in ~/.bashrc,
#   eval "$(derun shell-init bash --auto)"
# each interactive bash on a terminal starts inside `derun shell`, once: never in a shell already
# inside derun, never for a script, `bash -c`, ssh host cmd, scp or rsync (not interactive), nor on
# a dumb terminal. DERUN_AUTO=0 opts one terminal out. If derun cannot start the shell, this one
# goes on as it would without the line; once the recorded shell ends, so does this one, with its status.
if [[ -n "${DERUN_SESSION_ID-}" ]]; then
  # Inside: tell the shell that started derun that its shell did start.
  if [[ -n "${DERUN_AUTO_PARENT-}" ]]; then
    kill -USR1 "$DERUN_AUTO_PARENT" 2>/dev/null
    unset DERUN_AUTO_PARENT
  fi
elif [[ $- == *i* && "${DERUN_AUTO-}" != 0 && "${TERM:-dumb}" != dumb && -t 0 && -t 1 ]] && command -v derun >/dev/null 2>&1; then
  __derun_auto_inside= __derun_auto_signaled=
  trap '__derun_auto_inside=1' USR1
  # derun says so (USR2) when the recorded shell died of a signal: $? alone cannot tell 129 from SIGHUP.
  trap '__derun_auto_signaled=1' USR2
  # SHLVL as this shell found it: the recorded shell stands in for this one and counts itself.
  DERUN_AUTO_PARENT=$$ SHLVL=$((SHLVL - 1)) derun shell -- "${BASH:-bash}"
  __derun_auto_status=$?
  trap - USR1 USR2
  # Ends as the recorded shell ended: by its signal (this shell's dispositions put back by exec), else its status.
  [[ -n $__derun_auto_inside && -n $__derun_auto_signaled && $__derun_auto_status -gt 128 ]] &&
    exec sh -c 'kill -"$1" $$; exit "$2"' sh $((__derun_auto_status - 128)) "$__derun_auto_status"
  [[ -n $__derun_auto_inside ]] && exit "$__derun_auto_status"
  unset __derun_auto_inside __derun_auto_signaled __derun_auto_status
fi
