/**
 * Advisory whole-file locks through `bun:ffi` (a native addon would have to be built for every Bun
 * and platform, and could not live in the single-file executable). POSIX uses libc `flock(2)`,
 * whose locks belong to the open file description and are dropped by the kernel when the holder
 * dies; Windows uses kernel32 `LockFileEx`/`UnlockFileEx` on the fd's OS handle, which behaves the
 * same way.
 */
import { dlopen, FFIType } from "bun:ffi";
import { errno, libc } from "../libc.ts";

interface LockApi {
  /** Try once; `true` if the exclusive lock is now held through `fd`, `false` if someone else holds it. */
  tryLock(fd: number): boolean;
  unlock(fd: number): void;
}

const LOCK_EX = 2;
const LOCK_NB = 4;
const LOCK_UN = 8;
const EWOULDBLOCK = new Set([11, 35]); // EAGAIN on Linux, on macOS
const EINTR = 4;

function posixApi(): LockApi {
  const { flock } = libc();
  const call = (fd: number, op: number): number => {
    for (;;) {
      if (flock(fd, op) === 0) return 0;
      const code = errno();
      if (code !== EINTR) return code;
    }
  };
  return {
    tryLock(fd) {
      const code = call(fd, LOCK_EX | LOCK_NB);
      if (code === 0) return true;
      if (EWOULDBLOCK.has(code)) return false;
      throw new Error(`flock failed: errno ${code}`);
    },
    unlock(fd) {
      call(fd, LOCK_UN);
    },
  };
}

function windowsApi(): LockApi {
  const LOCKFILE_FAIL_IMMEDIATELY = 1;
  const LOCKFILE_EXCLUSIVE_LOCK = 2;
  const kernel32 = dlopen("kernel32.dll", {
    LockFileEx: { args: [FFIType.ptr, FFIType.u32, FFIType.u32, FFIType.u32, FFIType.u32, FFIType.ptr], returns: FFIType.i32 },
    UnlockFileEx: { args: [FFIType.ptr, FFIType.u32, FFIType.u32, FFIType.u32, FFIType.ptr], returns: FFIType.i32 },
  });
  const crt = dlopen("ucrtbase.dll", { _get_osfhandle: { args: [FFIType.i32], returns: FFIType.ptr } });
  // OVERLAPPED is 32 bytes on x64; all zero means "from offset 0". The whole file = 0xFFFFFFFF x2.
  // Passed as a typed array so it stays alive for the duration of the call.
  const overlapped = () => new Uint8Array(32);
  return {
    tryLock(fd) {
      const handle = crt.symbols._get_osfhandle(fd);
      const flags = LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY;
      return kernel32.symbols.LockFileEx(handle, flags, 0, 0xffffffff, 0xffffffff, overlapped()) !== 0;
    },
    unlock(fd) {
      const handle = crt.symbols._get_osfhandle(fd);
      kernel32.symbols.UnlockFileEx(handle, 0, 0xffffffff, 0xffffffff, overlapped());
    },
  };
}

let api: LockApi | undefined;
const lockApi = (): LockApi => (api ??= process.platform === "win32" ? windowsApi() : posixApi());

/** Take the exclusive lock on `fd` if free; never waits. */
export const tryLockFile = (fd: number): boolean => lockApi().tryLock(fd);

/** Release the lock held through `fd` (closing the fd releases it too). */
export const unlockFile = (fd: number): void => lockApi().unlock(fd);

/**
 * Take the exclusive lock on `fd`, waiting (without blocking the event loop) while another open
 * file holds it. Retries back off from 5 ms to 100 ms.
 */
export async function lockFile(fd: number, signal?: AbortSignal): Promise<void> {
  for (let delay = 5; !tryLockFile(fd); delay = Math.min(delay * 2, 100)) {
    signal?.throwIfAborted();
    await Bun.sleep(delay);
  }
}
