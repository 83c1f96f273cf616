/**
 * Part of the session leader's C program (./leader-source.ts, one file compiled once): what a fresh
 * fork of derun puts right before it does anything else. A fork keeps derun's signal mask, handlers
 * and process name, and a copy of derun must never run derun's handlers nor pass for derun in ps;
 * the command also starts with the signals derun's caller ignored still ignored, as exec leaves them.
 * The leader uses all of it, the group sentinel (./sentinel-source.ts) name_process. Plain C, no
 * headers: the names it uses come from ./leader-abi.ts, placed before it.
 */
export const FORK_STATE_SOURCE = String.raw`static void set_mask(unsigned long fill) {
  unsigned long set[16];
  int i;
  for (i = 0; i < 16; i++) set[i] = fill;
  sigprocmask(SIG_SETMASK_, set, 0);
}

/* Every disposition back to the default: a copy of derun must never run derun's handlers. */
static void default_dispositions(void) {
  int i;
  for (i = 1; i < NSIG_; i++) signal(i, SIG_DFL_);
}

/* Signals derun's caller ignored (bit n-1 for signal n): the command starts with them ignored, as
 * exec leaves them. */
static unsigned long long ignored_mask = 0;
static void ignore_inherited(void) {
  int i;
  for (i = 1; i < NSIG_ && i <= 64; i++)
    if (ignored_mask & (1ULL << (i - 1))) signal(i, SIG_IGN_);
}

/* The signals derun forwards to the command itself (and the keyboard's): the leader ignores them,
 * so a signal meant for derun's whole group, or sent by a pattern that also names the leader, never
 * ends it and with it the command's terminal. */
static void ignore_forwarded_signals(void) {
  signal(SIGHUP_, SIG_IGN_);
  signal(SIGINT_, SIG_IGN_);
  signal(SIGQUIT_, SIG_IGN_);
  signal(SIGTERM_, SIG_IGN_);
  signal(SIGUSR1_, SIG_IGN_);
  signal(SIGUSR2_, SIG_IGN_);
  signal(SIGALRM_, SIG_IGN_);
  signal(SIGPIPE_, SIG_IGN_);
  signal(SIGTSTP_, SIG_IGN_);
  signal(SIGTTIN_, SIG_IGN_);
  signal(SIGTTOU_, SIG_IGN_);
}

/* Linux: "derun-leader" as the process name and command line (a fork keeps derun's), so that ps
 * tells it apart and pkill -f 'derun run' or killall derun do not take it for derun. The command
 * line is the kernel's argument area (arg_start and arg_end in /proc/self/stat), rewritten in place
 * as setproctitle does; this copy of it is the leader's own. */
static void name_process(const char *name) {
#ifdef PR_SET_NAME_
  char stat[2048];
  unsigned long start = 0, end = 0, value = 0, k;
  int fd, n, i, field;
  prctl(PR_SET_NAME_, name, 0, 0, 0);
  fd = open("/proc/self/stat", O_RDONLY_);
  if (fd < 0) return;
  n = read(fd, stat, sizeof stat);
  close(fd);
  /* Fields after the name, which may hold anything and ends at the last ')': arg_start is the
   * 48th field, arg_end the 49th. */
  for (i = n - 1; i >= 0 && stat[i] != ')'; i--) {}
  if (i < 0) return;
  for (field = 2, i++; i < n && end == 0; i++) {
    if (stat[i] != ' ') {
      if (stat[i] >= '0' && stat[i] <= '9') value = value * 10 + (unsigned long)(stat[i] - '0');
      continue;
    }
    if (field == 48) start = value;
    if (field == 49) end = value;
    field++;
    value = 0;
  }
  if (start == 0 || end <= start) return;
  for (i = 0; name[i]; i++) {}
  for (k = 0; k < end - start; k++) ((char *)start)[k] = k <= (unsigned long)i ? name[k] : 0;
#endif
}`;
