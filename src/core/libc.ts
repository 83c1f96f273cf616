/**
 * The libc calls derun makes on POSIX (terminal modes, window size, process groups, signal
 * dispositions, advisory locks), through bun:ffi, opened once and only when first needed. None of
 * them is variadic except ioctl, which is called on Linux only (see terminal.ts).
 */
import { dlopen, FFIType, read } from "bun:ffi";

const darwin = process.platform === "darwin";

function open() {
  return dlopen(darwin ? "libSystem.B.dylib" : "libc.so.6", {
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
  }).symbols;
}

let symbols: ReturnType<typeof open> | undefined;

/** libc, opened on first use (never on Windows). */
export const libc = (): ReturnType<typeof open> => (symbols ??= open());

/** errno as the last libc call through {@link libc} left it. */
export function errno(): number {
  const c = libc();
  const location = (darwin ? c.__error : c.__errno_location) as () => number | null;
  const pointer = location();
  return pointer === null ? 0 : read.i32(pointer as never, 0);
}
