/**
 * What the session leader (./leader-source.ts) needs of libc, spelled out because TinyCC compiles it
 * without system headers: the declarations of the calls it makes, and the numbers of the signals,
 * ioctls and flags it uses on each platform (macOS and Linux differ). Kept apart from the program
 * so that the program reads as what it does.
 */
export const LEADER_ABI = String.raw`
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
extern int open(const char *, int, ...);
extern int poll(struct pollfd *, unsigned long, int);
extern void *signal(int, void *);
extern int sigprocmask(int, const void *, void *);
extern int getdtablesize(void);
extern int sigpending(void *);
extern int sigwait(const void *, int *);
/* Weak: 0 where libc has none (glibc before 2.34, macOS). The group sentinel's fork. */
extern int _Fork(void) __attribute__((weak));
extern int vfork(void);
#ifdef __APPLE__
extern int *__error(void);
#define ERRNO (*__error())
#define TIOCSCTTY_ 0x20007461UL
#define SIGCHLD_ 20
#define SIGCONT_ 19
#define SIGTSTP_ 18
#define SIGUSR1_ 30
#define SIGUSR2_ 31
#define NSIG_ 32
#define SIG_SETMASK_ 3
#define O_NONBLOCK_ 0x4
#define F_DUPFD_CLOEXEC_ 67
#else
extern int *__errno_location(void);
extern long syscall(long, ...);
#define ERRNO (*__errno_location())
#define TIOCSCTTY_ 0x540EUL
#define SIGCHLD_ 17
#define SIGCONT_ 18
#define SIGTSTP_ 20
#define SIGUSR1_ 10
#define SIGUSR2_ 12
#define NSIG_ 65
#define SIG_SETMASK_ 2
#define SYS_close_range_ 436
#define O_NONBLOCK_ 04000
#define O_CLOEXEC_ 02000000
#define F_DUPFD_CLOEXEC_ 1030
extern int pipe2(int *, int);
extern int prctl(int, ...);
#define PR_SET_NAME_ 15
#endif
#define SIGHUP_ 1
#define SIGINT_ 2
#define SIGQUIT_ 3
#define SIGPIPE_ 13
#define SIGALRM_ 14
#define SIGTERM_ 15
#define SIGTTIN_ 21
#define SIGTTOU_ 22
#define WNOHANG_ 1
#define WUNTRACED_ 2
#define EINTR_ 4
#define F_DUPFD_ 0
#define F_SETFD_ 2
#define F_GETFL_ 3
#define F_SETFL_ 4
#define O_RDONLY_ 0
#define FD_CLOEXEC_ 1
#define POLLIN_ 1
#define SIG_DFL_ ((void *)0)
#define SIG_IGN_ ((void *)1)
`;
