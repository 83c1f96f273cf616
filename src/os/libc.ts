/**
 * Every libc call derun makes on POSIX, through bun:ffi, in groups opened once and only when first
 * needed: each bound symbol costs start-up time, so a run binds only the groups its path uses.
 * None of them is variadic except ioctl and fcntl, which are called on Linux only, where variadic
 * arguments travel in registers like any others (on Apple arm64 they go on the stack, which
 * bun:ffi cannot do).
 */
import { dlopen, FFIType, read } from "bun:ffi";

const darwin = process.platform === "darwin";
const LIBC = darwin ? "libSystem.B.dylib" : "libc.so.6";

const once = <T>(open: () => T): (() => T) => {
  let value: T | undefined;
  return () => (value ??= open());
};

/** Terminal modes and window size, process groups, signal dispositions, advisory locks, errno. */
export const libc = once(
  () =>
    dlopen(LIBC, {
      isatty: { args: [FFIType.i32], returns: FFIType.i32 },
      tcgetattr: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
      tcsetattr: { args: [FFIType.i32, FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
      cfmakeraw: { args: [FFIType.ptr], returns: FFIType.void },
      ioctl: { args: [FFIType.i32, FFIType.u64, FFIType.ptr], returns: FFIType.i32 },
      tcgetpgrp: { args: [FFIType.i32], returns: FFIType.i32 },
      getpgrp: { args: [], returns: FFIType.i32 },
      signal: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.ptr },
      flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
      // Where errno lives for this thread: the one name differs between the two libcs.
      [darwin ? "__error" : "__errno_location"]: { args: [], returns: FFIType.ptr },
    }).symbols,
);

/** errno as the last libc call through {@link libc} left it. */
export function errno(): number {
  const c = libc();
  const location = (darwin ? c.__error : c.__errno_location) as () => number | null;
  const pointer = location();
  return pointer === null ? 0 : read.i32(pointer as never, 0);
}

/**
 * What derun's own death and its inherited signal dispositions need (recorder/signals.ts): a
 * disposition read without changing it, and no core file of derun's. prctl is variadic: Linux only.
 */
export const libcSignals = once(
  () =>
    dlopen(LIBC, {
      sigaction: { args: [FFIType.i32, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
      setrlimit: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
      ...(darwin ? {} : { prctl: { args: [FFIType.i32, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.u64], returns: FFIType.i32 } }),
    }).symbols,
);

/** Making pipes (io/fifo-pipe.ts). fcntl is variadic: Linux only. */
export const libcPipes = once(
  () =>
    dlopen(LIBC, {
      // mode_t is 32 bits on Linux and 16 on macOS.
      mkfifo: { args: [FFIType.cstring, darwin ? FFIType.u16 : FFIType.u32], returns: FFIType.i32 },
      fcntl: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    }).symbols,
);

/** pipe2 (Linux only: macOS has none): a pipe without the FIFO detour of io/fifo-pipe.ts. */
export const libcPipe2 = once(() => dlopen(LIBC, { pipe2: { args: [FFIType.ptr, FFIType.i32], returns: FFIType.i32 } }).symbols);

/** Allocating pseudo-terminals (pty/stream-pty.ts; Linux). */
export const libcPty = once(
  () =>
    dlopen(LIBC, {
      grantpt: { args: [FFIType.i32], returns: FFIType.i32 },
      unlockpt: { args: [FFIType.i32], returns: FFIType.i32 },
      ptsname: { args: [FFIType.i32], returns: FFIType.ptr },
    }).symbols,
);

/** Waiting until fds are readable, Linux (io/readiness.ts). */
export const libcEpoll = once(
  () =>
    dlopen(LIBC, {
      epoll_create1: { args: [FFIType.i32], returns: FFIType.i32 },
      epoll_ctl: { args: [FFIType.i32, FFIType.i32, FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
      epoll_wait: { args: [FFIType.i32, FFIType.ptr, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
      close: { args: [FFIType.i32], returns: FFIType.i32 },
    }).symbols,
);

/** Waiting until fds are readable, elsewhere (io/readiness.ts). */
export const libcPoll = once(
  () =>
    dlopen(LIBC, {
      // nfds_t: unsigned int on macOS, unsigned long on Linux.
      poll: { args: [FFIType.ptr, darwin ? FFIType.u32 : FFIType.u64, FFIType.i32], returns: FFIType.i32 },
    }).symbols,
);

/** Bytes and fds around terminals: typed-ahead input, a child's PTY (tty/terminal-takeover.ts, pty/). */
export const libcTtyIo = once(
  () =>
    dlopen(LIBC, {
      read: { args: [FFIType.i32, FFIType.ptr, FFIType.u64], returns: FFIType.i64 },
      write: { args: [FFIType.i32, FFIType.ptr, FFIType.u64], returns: FFIType.i64 },
      dup2: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
      close: { args: [FFIType.i32], returns: FFIType.i32 },
      getsid: { args: [FFIType.i32], returns: FFIType.i32 },
    }).symbols,
);

/** Scheduling policy of a thread of derun's own (recorder/runtime-threads.ts; Linux). */
export const libcSched = once(
  () => dlopen(LIBC, { sched_setscheduler: { args: [FFIType.i32, FFIType.i32, FFIType.ptr], returns: FFIType.i32 } }).symbols,
);

/** A child's stops and a helper's exit, beside Bun's own reaping (pty/). */
export const libcWait = once(
  () =>
    dlopen(LIBC, {
      waitid: { args: [FFIType.i32, FFIType.i32, FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
      waitpid: { args: [FFIType.i32, FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
    }).symbols,
);

/**
 * kcmp(2) through syscall (Linux only; syscall is variadic, see the top): whether two fds of this
 * process share one open file description (tty/same-open-file.ts).
 */
export const libcKcmp = once(
  () =>
    dlopen(LIBC, {
      syscall: { args: [FFIType.i64, FFIType.i64, FFIType.i64, FFIType.i64, FFIType.i64, FFIType.i64], returns: FFIType.i64 },
    }).symbols,
);

/** Dropping a live session's oldest bytes in place (core/file-store/trim.ts; Linux only: macOS has no fallocate). */
export const libcFallocate = once(
  () => dlopen(LIBC, { fallocate: { args: [FFIType.i32, FFIType.i32, FFIType.i64, FFIType.i64], returns: FFIType.i32 } }).symbols,
);

/** The C library's own environment, which native code reads with getenv (os/c-env.ts). */
export const libcEnv = once(
  () =>
    dlopen(LIBC, {
      getenv: { args: [FFIType.cstring], returns: FFIType.ptr },
      setenv: { args: [FFIType.cstring, FFIType.cstring, FFIType.i32], returns: FFIType.i32 },
      unsetenv: { args: [FFIType.cstring], returns: FFIType.i32 },
      strlen: { args: [FFIType.ptr], returns: FFIType.u64 },
    }).symbols,
);
