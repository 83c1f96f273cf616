/**
 * Advisory whole-file locks through `bun:ffi` (a native addon would have to be built for every Bun
 * and platform, and could not live in the single-file executable). Both kinds are dropped by the
 * system when the holder dies, so "can I take it now?" is an exact liveness answer.
 *
 * POSIX: libc `flock(2)` on the fd, whose lock belongs to the open file description.
 * Windows: kernel32 `LockFileEx` on a handle derun opens itself with `CreateFileW` on the same
 * path. Bun's descriptors cannot be turned into OS handles from outside: its C runtime is linked
 * statically, so ucrtbase's `_get_osfhandle` knows none of them (it returned -1, LockFileEx failed
 * with ERROR_INVALID_HANDLE, and the old code read that as "held" and waited forever).
 */
import { dlopen, FFIType } from "bun:ffi";
import { errno, libc } from "../os/libc.ts";

/** An exclusive lock on one file, taken and released through what {@link openLock} opened. */
export interface FileLock {
  /** Try once: `true` if now held here, `false` if someone else holds it; any other failure throws. */
  tryLock(): boolean;
  /** Take it, waiting (without blocking the event loop, backing off 5 ms to 100 ms) while held elsewhere. */
  lock(signal?: AbortSignal): Promise<void>;
  /** Release it (closing releases it too). */
  unlock(): void;
  /** Close what this lock opened beyond `fd` (the Windows handle); `fd` stays the caller's to close. */
  close(): void;
}

/** The lock of `file`, open at `fd` (a regular file the caller has checked). */
export function openLock(fd: number, file: string): FileLock {
  const api = process.platform === "win32" ? windowsLock(file) : posixLock(fd, file);
  return {
    ...api,
    async lock(signal) {
      for (let delay = 5; !api.tryLock(); delay = Math.min(delay * 2, 100)) {
        signal?.throwIfAborted();
        await Bun.sleep(delay);
      }
    },
  };
}

const LOCK_EX = 2;
const LOCK_NB = 4;
const LOCK_UN = 8;
const EWOULDBLOCK = new Set([11, 35]); // EAGAIN on Linux, on macOS
const EINTR = 4;

function posixLock(fd: number, file: string): Omit<FileLock, "lock"> {
  const { flock } = libc();
  const call = (op: number): number => {
    for (;;) {
      if (flock(fd, op) === 0) return 0;
      const code = errno();
      if (code !== EINTR) return code;
    }
  };
  return {
    tryLock() {
      const code = call(LOCK_EX | LOCK_NB);
      if (code === 0) return true;
      if (EWOULDBLOCK.has(code)) return false;
      throw new Error(`cannot lock ${file}: flock failed with errno ${code}`);
    },
    unlock: () => void call(LOCK_UN),
    close() {},
  };
}

const GENERIC_READ = 0x80000000;
const FILE_SHARE_ALL = 0x1 | 0x2 | 0x4; // read, write, delete: the lock must not stop anyone opening or removing the file
const OPEN_EXISTING = 3;
const FILE_ATTRIBUTE_NORMAL = 0x80;
const LOCKFILE_FAIL_IMMEDIATELY = 1;
const LOCKFILE_EXCLUSIVE_LOCK = 2;
const ERROR_LOCK_VIOLATION = 33;
const INVALID_HANDLE_VALUE = -1n;

const kernel32 = (() => {
  let symbols: ReturnType<typeof open> | undefined;
  // HANDLE is pointer-sized: i64, so INVALID_HANDLE_VALUE comes back exactly as -1n.
  const open = () =>
    dlopen("kernel32.dll", {
      CreateFileW: {
        args: [FFIType.ptr, FFIType.u32, FFIType.u32, FFIType.ptr, FFIType.u32, FFIType.u32, FFIType.i64],
        returns: FFIType.i64,
      },
      LockFileEx: { args: [FFIType.i64, FFIType.u32, FFIType.u32, FFIType.u32, FFIType.u32, FFIType.ptr], returns: FFIType.i32 },
      UnlockFileEx: { args: [FFIType.i64, FFIType.u32, FFIType.u32, FFIType.u32, FFIType.ptr], returns: FFIType.i32 },
      CloseHandle: { args: [FFIType.i64], returns: FFIType.i32 },
      GetLastError: { args: [], returns: FFIType.u32 },
    }).symbols;
  return () => (symbols ??= open());
})();

/** A NUL-terminated UTF-16 string for the W functions. */
const wide = (text: string): Buffer => Buffer.from(`${text}\0`, "utf16le");

function windowsLock(file: string): Omit<FileLock, "lock"> {
  const k = kernel32();
  // Read access is enough for LockFileEx; the file is never read or written through this handle.
  const handle = k.CreateFileW(wide(file), GENERIC_READ, FILE_SHARE_ALL, null, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, 0n);
  if (handle === INVALID_HANDLE_VALUE) throw new Error(`cannot lock ${file}: CreateFileW failed with Windows error ${k.GetLastError()}`);
  // OVERLAPPED (32 bytes on x64), all zero: the range starts at offset 0; 0xFFFFFFFF x2 = the whole file.
  const overlapped = () => new Uint8Array(32);
  let closed = false;
  return {
    tryLock() {
      if (k.LockFileEx(handle, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, 0xffffffff, 0xffffffff, overlapped()) !== 0)
        return true;
      const code = k.GetLastError();
      if (code === ERROR_LOCK_VIOLATION) return false;
      throw new Error(`cannot lock ${file}: LockFileEx failed with Windows error ${code}`);
    },
    unlock: () => void k.UnlockFileEx(handle, 0, 0xffffffff, 0xffffffff, overlapped()),
    close() {
      if (closed) return;
      closed = true;
      k.CloseHandle(handle);
    },
  };
}
