/**
 * The C source of the session leader (see leader.ts), compiled at run time by TinyCC through
 * bun:ffi `cc`. No headers: the few declarations and constants it needs are spelled out, per
 * platform. After fork() it makes only async-signal-safe calls. Records on the events pipe are two
 * native ints (kind, value); commands on the control pipe are one int.
 */
export const LEADER_SOURCE = String.raw`
typedef unsigned long size_t;
typedef long ssize_t;
struct pollfd { int fd; short events; short revents; };
extern int fork(void);
extern int setsid(void);
extern int ioctl(int, unsigned long, ...);
extern int setpgid(int, int);
extern int getpgrp(void);
extern int getpid(void);
extern int tcsetpgrp(int, int);
extern int dup2(int, int);
extern int close(int);
extern int chdir(const char *);
extern int execve(const char *, char *const *, char *const *);
extern int waitpid(int, int *, int);
extern int kill(int, int);
extern ssize_t read(int, void *, size_t);
extern ssize_t write(int, const void *, size_t);
extern void _exit(int);
extern int pipe(int *);
extern int fcntl(int, int, ...);
extern int poll(struct pollfd *, unsigned long, int);
extern void *signal(int, void *);
extern int sigprocmask(int, const void *, void *);
extern int getdtablesize(void);
#ifdef __APPLE__
extern int *__error(void);
#define ERRNO (*__error())
#define TIOCSCTTY_ 0x20007461UL
#define SIGCHLD_ 20
#define SIGCONT_ 19
#define SIGTSTP_ 18
#define NSIG_ 32
#define SIG_SETMASK_ 3
#else
extern int *__errno_location(void);
extern long syscall(long, ...);
#define ERRNO (*__errno_location())
#define TIOCSCTTY_ 0x540EUL
#define SIGCHLD_ 17
#define SIGCONT_ 18
#define SIGTSTP_ 20
#define NSIG_ 65
#define SIG_SETMASK_ 2
#define SYS_close_range_ 436
#endif
#define SIGHUP_ 1
#define SIGINT_ 2
#define SIGQUIT_ 3
#define SIGPIPE_ 13
#define SIGTTIN_ 21
#define SIGTTOU_ 22
#define WNOHANG_ 1
#define WUNTRACED_ 2
#define EINTR_ 4
#define F_DUPFD_ 0
#define F_SETFD_ 2
#define FD_CLOEXEC_ 1
#define POLLIN_ 1
#define SIG_DFL_ ((void *)0)
#define SIG_IGN_ ((void *)1)

/* Fixed fds in the leader: 0-2 the PTY, 3 events to derun, 4 commands from derun. */
#define EVENTS 3
#define CONTROL 4

enum { EV_PID = 1, EV_EXEC_ERROR = 2, EV_STOPPED = 3, EV_EXIT = 4 };
enum { CMD_FG = 1, CMD_BG = 2 };

static int wake_w = -1;
static int child_pid = 0;

/* The PTY hung up: the kernel told its session leader, this process. Without it the command would
 * lead the session and get SIGHUP and SIGCONT itself; so it gets them now. */
static void on_hangup(int sig) {
  int saved = ERRNO;
  if (child_pid > 0) {
    kill(-child_pid, SIGHUP_);
    kill(-child_pid, SIGCONT_);
  }
  ERRNO = saved;
  (void)sig;
}

static void on_child(int sig) {
  int saved = ERRNO;
  char byte = 0;
  write(wake_w, &byte, 1);
  ERRNO = saved;
  (void)sig;
}

static void report(int kind, int value) {
  int record[2];
  record[0] = kind;
  record[1] = value;
  write(EVENTS, record, sizeof record);
}

static void default_signals(void) {
  unsigned long empty[16];
  int i;
  for (i = 1; i < NSIG_; i++) signal(i, SIG_DFL_);
  for (i = 0; i < 16; i++) empty[i] = 0;
  sigprocmask(SIG_SETMASK_, empty, 0);
}

/* Keep only the PTY, the events and the control fds, at fixed numbers. */
static void arrange_fds(int slave, int events_w, int control_r) {
  int high_slave = fcntl(slave, F_DUPFD_, 10);
  int high_events = fcntl(events_w, F_DUPFD_, 10);
  int high_control = fcntl(control_r, F_DUPFD_, 10);
  int fd, max;
  dup2(high_slave, 0);
  dup2(high_slave, 1);
  dup2(high_slave, 2);
  dup2(high_events, EVENTS);
  dup2(high_control, CONTROL);
#ifdef SYS_close_range_
  if (syscall(SYS_close_range_, CONTROL + 1, ~0U, 0) == 0) return;
#endif
  max = getdtablesize();
  if (max > 65536) max = 65536;
  for (fd = CONTROL + 1; fd < max; fd++) close(fd);
}

static void cloexec_pipe(int *fds) {
  if (pipe(fds) != 0) {
    report(EV_EXEC_ERROR, ERRNO);
    _exit(0);
  }
  fcntl(fds[0], F_SETFD_, FD_CLOEXEC_);
  fcntl(fds[1], F_SETFD_, FD_CLOEXEC_);
}

static void run_command(int foreground, const char *path, char *const *argv, char *const *envp, const char *cwd, int err_w) {
  int error;
  setpgid(0, 0);
  /* SIGTTOU is still ignored (the leader's), so a background group may take the terminal. */
  if (foreground) tcsetpgrp(0, getpid());
  default_signals();
  if (cwd == 0 || chdir(cwd) == 0) execve(path, argv, envp);
  error = ERRNO;
  write(err_w, &error, sizeof error);
  _exit(127);
}

static void lead(int slave, int foreground, const char *path, char *const *argv, char *const *envp, const char *cwd, int events_w, int control_r) {
  int errors[2], wake[2], child, status, error, n, command, derun_gone = 0;
  struct pollfd fds[2];
  default_signals();
  signal(SIGHUP_, SIG_IGN_);
  signal(SIGINT_, SIG_IGN_);
  signal(SIGQUIT_, SIG_IGN_);
  signal(SIGPIPE_, SIG_IGN_);
  signal(SIGTSTP_, SIG_IGN_);
  signal(SIGTTIN_, SIG_IGN_);
  signal(SIGTTOU_, SIG_IGN_);
  arrange_fds(slave, events_w, control_r);
  setsid();
  ioctl(0, TIOCSCTTY_, 0);
  fcntl(EVENTS, F_SETFD_, FD_CLOEXEC_);
  fcntl(CONTROL, F_SETFD_, FD_CLOEXEC_);
  cloexec_pipe(errors);
  cloexec_pipe(wake);
  wake_w = wake[1];
  signal(SIGCHLD_, (void *)on_child);
  child = fork();
  if (child == 0) run_command(foreground, path, argv, envp, cwd, errors[1]);
  if (child < 0) {
    report(EV_EXEC_ERROR, ERRNO);
    _exit(0);
  }
  setpgid(child, child);
  if (foreground) tcsetpgrp(0, child);
  child_pid = child;
  signal(SIGHUP_, (void *)on_hangup);
  close(errors[1]);
  do n = read(errors[0], &error, sizeof error); while (n < 0 && ERRNO == EINTR_);
  if (n == sizeof error) {
    while (waitpid(child, &status, 0) < 0 && ERRNO == EINTR_) {}
    report(EV_EXEC_ERROR, error);
    _exit(0);
  }
  report(EV_PID, child);
  for (;;) {
    fds[0].fd = wake[0];
    fds[0].events = POLLIN_;
    fds[0].revents = 0;
    fds[1].fd = derun_gone ? -1 : CONTROL;
    fds[1].events = POLLIN_;
    fds[1].revents = 0;
    if (poll(fds, 2, -1) < 0 && ERRNO != EINTR_) _exit(1);
    if (fds[0].revents) {
      char drained[64];
      read(wake[0], drained, sizeof drained);
      for (;;) {
        int got = waitpid(child, &status, WNOHANG_ | WUNTRACED_);
        if (got < 0 && ERRNO == EINTR_) continue;
        if (got <= 0) break;
        if ((status & 0xff) == 0x7f) {
          report(EV_STOPPED, (status >> 8) & 0xff);
          continue;
        }
        report(EV_EXIT, status);
        _exit(0);
      }
    }
    if (fds[1].revents) {
      n = read(CONTROL, &command, sizeof command);
      if (n == sizeof command) {
        tcsetpgrp(0, command == CMD_FG ? child : getpgrp());
        kill(-child, SIGCONT_);
      } else if (n <= 0 && !(n < 0 && ERRNO == EINTR_)) {
        /* derun is gone: what the kernel does to an orphaned process group with a stopped member. */
        derun_gone = 1;
        kill(-child, SIGHUP_);
        kill(-child, SIGCONT_);
      }
    }
  }
}

/* A pipe whose ends close on exec (derun's own children must not inherit them). 0, or -errno. */
int derun_pipe(int *fds) {
  if (pipe(fds) != 0) return -ERRNO;
  fcntl(fds[0], F_SETFD_, FD_CLOEXEC_);
  fcntl(fds[1], F_SETFD_, FD_CLOEXEC_);
  return 0;
}

/* Starts the leader; returns its pid, or -errno when fork fails. */
int derun_start_leader(int slave, int foreground, const char *path, char *const *argv, char *const *envp, const char *cwd, int events_w, int control_r) {
  int pid = fork();
  if (pid == 0) lead(slave, foreground, path, argv, envp, cwd, events_w, control_r);
  return pid < 0 ? -ERRNO : pid;
}
`;
