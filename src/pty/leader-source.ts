/**
 * The C source of the session leader (see leader.ts), compiled at run time by TinyCC through
 * bun:ffi `cc`. No headers: the few declarations and constants it needs are spelled out, per
 * platform, in ./leader-abi.ts. Records on the events pipe are two native ints (kind, value);
 * commands on the control pipe are one int.
 *
 * The leader is a fork of derun, a multi-threaded process, that never executes anything else, so
 * it keeps to plain system-call wrappers that take no lock: close to POSIX's async-signal-safe
 * list, not on it in three places. It starts the command with vfork, which runs no atfork handler
 * and copies none of the address space it took over from derun (a fork did: page tables of a
 * hundred megabytes, and a copy-on-write fault for each page the command's copy touched before its
 * exec, measured about 0.5 ms a start); the command's copy only makes system calls on its own
 * stack frames until it execs or _exits. ioctl, getdtablesize and syscall are not on the list, but
 * are such wrappers on Linux and macOS. Signals are blocked across each fork and reset in the child
 * before it unblocks them, so none of derun's handlers ever runs in a copy.
 */
import { FORK_STATE_SOURCE } from "./fork-state-source.ts";
import { KEPT_FDS_SOURCE } from "./kept-fds-source.ts";
import { LEADER_ABI } from "./leader-abi.ts";
import { SENTINEL_SOURCE } from "./sentinel-source.ts";

// One C file in four parts, each placed after the names it uses: the leader's events and commands
// here, a fresh fork's state (./fork-state-source.ts), the fds it keeps (./kept-fds-source.ts), the
// group sentinel (./sentinel-source.ts). The `+` joins only keep two long prototypes within 140 columns.
export const LEADER_SOURCE =
  String.raw`${LEADER_ABI}
/* Fixed fds in the leader: 0-2 the PTY, 3 events to derun, 4 commands from derun. */
#define EVENTS 3
#define CONTROL 4

enum { EV_PID = 1, EV_EXEC_ERROR = 2, EV_STOPPED = 3, EV_EXIT = 4 };
/* CMD_SIGNAL + n: send signal n to the command (never after it was reaped: the leader exits then).
 * CMD_FG or CMD_BG + CMD_NO_CONT: only move the PTY's foreground (the group is running: "fg" of a
 * job in the background sends no SIGCONT). */
enum { CMD_FG = 1, CMD_BG = 2, CMD_NO_CONT = 2, CMD_SIGNAL = 256 };

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

${FORK_STATE_SOURCE}

${KEPT_FDS_SOURCE}

/* The pipes the leader makes for itself; a failure is reported as the command's exec error. */
static void leader_pipe(int *fds) {
  if (cloexec_pipe(fds) == 0) return;
  report(EV_EXEC_ERROR, ERRNO);
  _exit(0);
}

static void run_command(int foreground, const char *path, char *const *argv, char *const *envp, const char *cwd, int err_w) {
  int error;
  setpgid(0, 0);
  /* SIGTTOU is still ignored (the leader's), so a background group may take the terminal. */
  if (foreground) tcsetpgrp(0, getpid());
  default_dispositions();
  ignore_inherited();
  err_w = place_kept(err_w);
  set_mask(0);
  if (cwd == 0 || chdir(cwd) == 0) execve(path, argv, envp);
  error = ERRNO;
  write(err_w, &error, sizeof error);
  _exit(127);
}

static void lead(int slave, int foreground, const char *path, char *const *argv, char *const *envp, ` +
  String.raw`const char *cwd, int events_w, int control_r, const int *keep, int keep_count) {
  int errors[2], wake[2], child, status, error, n, command, derun_gone = 0;
  struct pollfd fds[2];
  /* Signals are blocked (derun_start_leader): dispositions first, then they may come. */
  default_dispositions();
  ignore_forwarded_signals();
  name_process("derun-leader");
  lift_kept(keep, keep_count);
  arrange_fds(slave, events_w, control_r);
  setsid();
  ioctl(0, TIOCSCTTY_, 0);
  fcntl(EVENTS, F_SETFD_, FD_CLOEXEC_);
  fcntl(CONTROL, F_SETFD_, FD_CLOEXEC_);
  leader_pipe(errors);
  leader_pipe(wake);
  /* Written from the SIGCHLD handler, which must never block; read until empty. */
  set_nonblocking(wake[0]);
  set_nonblocking(wake[1]);
  wake_w = wake[1];
  signal(SIGCHLD_, (void *)on_child);
  /* Still blocked: the command's copy resets its dispositions before it unblocks them. The leader
   * waits in vfork until the command has exec'd or failed; the copy goes straight into run_command,
   * which never returns. */
  child = vfork();
  if (child == 0) run_command(foreground, path, argv, envp, cwd, errors[1]);
  if (child < 0) {
    report(EV_EXEC_ERROR, ERRNO);
    _exit(0);
  }
  /* No setpgid or tcsetpgrp here (a fork's parent makes them too, racing its child): vfork returns
   * only once the copy made both and exec'd, so the command may already have moved the terminal to
   * a group of its own, which a late tcsetpgrp here would take back. */
  child_pid = child;
  /* The command has its copies; the leader's would keep a pipe open after the command closed it. */
  for (n = 0; n < kept_count; n++) close(kept_high[n]);
  signal(SIGHUP_, (void *)on_hangup);
  set_mask(0);
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
    if (poll(fds, 2, -1) < 0) {
      /* EINTR, or a failure that may pass (ENOMEM): the leader must outlive its command, so it
       * waits a moment and looks again rather than leave the command's terminal to hang up. */
      if (ERRNO != EINTR_) poll(fds, 0, 10);
      continue;
    }
    if (fds[0].revents) {
      char drained[64];
      while (read(wake[0], drained, sizeof drained) > 0) {}
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
      if (n == sizeof command && command > CMD_SIGNAL) {
        kill(child, command - CMD_SIGNAL);
      } else if (n == sizeof command) {
        tcsetpgrp(0, command == CMD_FG || command == CMD_FG + CMD_NO_CONT ? child : getpgrp());
        if (command <= CMD_BG) kill(-child, SIGCONT_);
      } else if (n <= 0 && !(n < 0 && ERRNO == EINTR_)) {
        /* derun is gone: what the kernel does to an orphaned process group with a stopped member. */
        derun_gone = 1;
        kill(-child, SIGHUP_);
        kill(-child, SIGCONT_);
      }
    }
  }
}

${SENTINEL_SOURCE}/* A pipe whose ends close on exec (derun's own children must not inherit them). 0, or -errno. */
int derun_pipe(int *fds) {
  return cloexec_pipe(fds) == 0 ? 0 : -ERRNO;
}

/* Starts the leader; returns its pid, or -errno when fork fails. Signals are blocked across the
 * fork (the leader resets them before it takes any), and derun's own mask is put back. */
int derun_start_leader(int slave, int foreground, const char *path, char *const *argv, char *const *envp, ` +
  String.raw`const char *cwd, int events_w, int control_r, unsigned long long ignored, const int *keep, int keep_count) {
  unsigned long all[16], saved[16];
  int i, pid, error;
  ignored_mask = ignored;
  for (i = 0; i < 16; i++) all[i] = ~0UL;
  sigprocmask(SIG_SETMASK_, all, saved);
  pid = fork();
  if (pid == 0) lead(slave, foreground, path, argv, envp, cwd, events_w, control_r, keep, keep_count);
  error = ERRNO;
  sigprocmask(SIG_SETMASK_, saved, 0);
  return pid < 0 ? -error : pid;
}
`;
