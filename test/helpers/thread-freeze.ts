/**
 * Stopping one thread of a process the test started while its other threads run on (ptrace's
 * interrupt, Linux): the kernel's own way to have a thread run late, as a loaded machine's
 * scheduler may, for as long as the test says. The thread goes on where it was once let go.
 */
import { dlopen, FFIType } from "bun:ffi";

const PTRACE_SEIZE = 0x4206;
const PTRACE_INTERRUPT = 0x4207;
const PTRACE_DETACH = 17;
/** waitpid: any child kind, a thread included. */
const WALL = 0x40000000;

const libc = () =>
  dlopen("libc.so.6", {
    // Variadic in libc; called with its four integer arguments, as the kernel takes them.
    ptrace: { args: [FFIType.i64, FFIType.i32, FFIType.u64, FFIType.u64], returns: FFIType.i64 },
    waitpid: { args: [FFIType.i32, FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
  }).symbols;

export interface FrozenThread {
  /** Lets the thread run again (or, when its process ended meanwhile, lets its parent see the end). */
  thaw(): void;
}

/** Stops thread `tid` (of a descendant of the test's process) until {@link FrozenThread.thaw}; it is stopped on return. */
export function freezeThread(tid: number): FrozenThread {
  const { ptrace, waitpid } = libc();
  if (Number(ptrace(PTRACE_SEIZE, tid, 0n, 0n)) !== 0) throw new Error(`ptrace(PTRACE_SEIZE, ${tid}) failed`);
  ptrace(PTRACE_INTERRUPT, tid, 0n, 0n);
  // Until it is in its ptrace stop (the status is not needed).
  if (waitpid(tid, new Int32Array(1), WALL) !== tid) throw new Error(`waitpid(${tid}) failed`);
  let thawed = false;
  return {
    thaw() {
      if (thawed) return;
      thawed = true;
      if (Number(ptrace(PTRACE_DETACH, tid, 0n, 0n)) === 0) return;
      // Its process exited meanwhile: the thread waits as a zombie for its tracer (this process)
      // to reap it, and until then the process's parent is never told it ended.
      waitpid(tid, new Int32Array(1), WALL);
    },
  };
}
