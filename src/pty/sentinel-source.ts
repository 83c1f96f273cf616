/**
 * The group sentinel's part of the C program in ./leader-source.ts (one file, compiled once): the
 * sentinel itself and the call that forks it. It uses names defined before it there (name_process
 * of ./fork-state-source.ts, EVENTS, CONTROL, the ABI's constants), so it is placed after them.
 */
export const SENTINEL_SOURCE = String.raw`/* The group sentinel (see group-sentinel.ts): a process in derun's own process group that blocks
 * the signals derun forwards, so that one sent to the whole group stays pending in it, where a
 * signal sent to derun's pid alone never is. For each signal number derun writes on fd 3, it
 * answers on fd 4 whether that signal is pending, and takes it (sigwait) if so. Every other
 * signal is ignored: only SIGKILL, or derun closing fd 3, ends it. */
static void sentinel(int control_r, int answer_w, unsigned long long watched) {
  unsigned long set[16], pending[16], one[16];
  int i, n, command, answer, taken;
  for (i = 1; i < NSIG_; i++) signal(i, SIG_IGN_);
  for (i = 0; i < 16; i++) set[i] = 0;
  set[0] = (unsigned long)watched;
  for (i = 1; i <= 64 && i < NSIG_; i++)
    if (watched & (1ULL << (i - 1))) signal(i, SIG_DFL_);
  sigprocmask(SIG_SETMASK_, set, 0);
  name_process("pgrp-sentinel");
  {
    int high_control = fcntl(control_r, F_DUPFD_, 10);
    int high_answer = fcntl(answer_w, F_DUPFD_, 10);
    int fd, max;
    dup2(high_control, EVENTS);
    dup2(high_answer, CONTROL);
    for (fd = 0; fd < EVENTS; fd++) close(fd);
#ifdef SYS_close_range_
    if (syscall(SYS_close_range_, CONTROL + 1, ~0U, 0) != 0)
#endif
    {
      max = getdtablesize();
      if (max > 65536) max = 65536;
      for (fd = CONTROL + 1; fd < max; fd++) close(fd);
    }
  }
  for (;;) {
    n = read(EVENTS, &command, sizeof command);
    if (n < 0 && ERRNO == EINTR_) continue;
    if (n != sizeof command) _exit(0);
    answer = 0;
    if (command > 0 && command <= 64 && sigpending(pending) == 0 && (pending[0] & (1UL << (command - 1)))) {
      for (i = 0; i < 16; i++) one[i] = 0;
      one[0] = 1UL << (command - 1);
      sigwait(one, &taken);
      answer = 1;
    }
    write(CONTROL, &answer, sizeof answer);
  }
}

/* Forks the sentinel; its pid, or -errno. Signals are blocked across the fork, as for the leader. */
int derun_start_sentinel(int control_r, int answer_w, unsigned long long watched) {
  unsigned long all[16], saved[16];
  int i, pid, error;
  for (i = 0; i < 16; i++) all[i] = ~0UL;
  sigprocmask(SIG_SETMASK_, all, saved);
  pid = _Fork ? _Fork() : fork();
  if (pid == 0) sentinel(control_r, answer_w, watched);
  error = ERRNO;
  sigprocmask(SIG_SETMASK_, saved, 0);
  return pid < 0 ? -error : pid;
}

`;
