/**
 * Part of the session leader's C program (./leader-source.ts, one file compiled once): which fds
 * the command and the leader keep. The command gets the fds derun's caller left open at their own
 * numbers and nothing else of derun's; the leader keeps its PTY and its two pipes to derun at fixed
 * numbers (EVENTS and CONTROL, defined before this part). It also makes the pipes that close on exec.
 * Plain C, no headers: the names it uses come from ./leader-abi.ts.
 */
export const KEPT_FDS_SOURCE = String.raw`/* The fds derun's caller left open, which the command gets at their own numbers: kept_at[i] is
 * the number, kept_high[i] the leader's close-on-exec copy of it (at 10 or above, never one of the
 * numbers, which were all open when it was made). */
#define MAX_KEPT 1024
static int kept_at[MAX_KEPT];
static int kept_high[MAX_KEPT];
static int kept_count = 0;

static void lift_kept(const int *keep, int count) {
  int i, high;
  for (i = 0; i < count && kept_count < MAX_KEPT; i++) {
    high = fcntl(keep[i], F_DUPFD_CLOEXEC_, 10);
    if (high < 0) continue;
    kept_at[kept_count] = keep[i];
    kept_high[kept_count] = high;
    kept_count++;
  }
}

/* Close fds low..high (inclusive). */
static void close_between(int low, unsigned int high) {
  int fd, max;
#ifdef SYS_close_range_
  if (syscall(SYS_close_range_, low, high, 0) == 0) return;
#endif
  max = getdtablesize();
  if (max > 65536) max = 65536;
  for (fd = low; fd < max && (unsigned int)fd <= high; fd++) close(fd);
}

/* Close every fd from low up but the kept copies. */
static void close_from(int low) {
  int i, next;
  for (;;) {
    next = -1;
    for (i = 0; i < kept_count; i++)
      if (kept_high[i] >= low && (next < 0 || kept_high[i] < next)) next = kept_high[i];
    if (next < 0) break;
    if (next > low) close_between(low, (unsigned int)next - 1);
    low = next + 1;
  }
  close_between(low, ~0U);
}

/* In the command's process, before exec: each kept fd at its own number, open across exec. The
 * error pipe goes above them all first, so that none lands on it. */
static int place_kept(int err_w) {
  int i, top = 10;
  for (i = 0; i < kept_count; i++)
    if (kept_at[i] >= top) top = kept_at[i] + 1;
  if (kept_count > 0) err_w = fcntl(err_w, F_DUPFD_CLOEXEC_, top);
  for (i = 0; i < kept_count; i++) dup2(kept_high[i], kept_at[i]);
  return err_w;
}

/* Keep only the PTY, the events and the control fds, at fixed numbers (and the kept copies). */
static void arrange_fds(int slave, int events_w, int control_r) {
  int high_slave = fcntl(slave, F_DUPFD_, 10);
  int high_events = fcntl(events_w, F_DUPFD_, 10);
  int high_control = fcntl(control_r, F_DUPFD_, 10);
  dup2(high_slave, 0);
  dup2(high_slave, 1);
  dup2(high_slave, 2);
  dup2(high_events, EVENTS);
  dup2(high_control, CONTROL);
  close_from(CONTROL + 1);
}

/* A pipe whose ends close on exec: pipe2 on Linux, in one step; pipe then fcntl elsewhere. 0 or -1. */
static int cloexec_pipe(int *fds) {
#ifdef O_CLOEXEC_
  return pipe2(fds, O_CLOEXEC_);
#else
  if (pipe(fds) != 0) return -1;
  fcntl(fds[0], F_SETFD_, FD_CLOEXEC_);
  fcntl(fds[1], F_SETFD_, FD_CLOEXEC_);
  return 0;
#endif
}

static void set_nonblocking(int fd) {
  fcntl(fd, F_SETFL_, fcntl(fd, F_GETFL_) | O_NONBLOCK_);
}`;
