/**
 * The few libc calls `derun run` needs on POSIX (terminal modes, window size, process groups,
 * signal dispositions), through bun:ffi, opened once and only when first needed.
 */
import { dlopen, FFIType } from "bun:ffi";

function open() {
  const path = process.platform === "darwin" ? "libSystem.B.dylib" : "libc.so.6";
  return dlopen(path, {
    isatty: { args: [FFIType.i32], returns: FFIType.i32 },
    tcgetattr: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
    tcsetattr: { args: [FFIType.i32, FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
    cfmakeraw: { args: [FFIType.ptr], returns: FFIType.void },
    ioctl: { args: [FFIType.i32, FFIType.u64, FFIType.ptr], returns: FFIType.i32 },
    tcgetpgrp: { args: [FFIType.i32], returns: FFIType.i32 },
    getpgrp: { args: [], returns: FFIType.i32 },
    signal: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.ptr },
  }).symbols;
}

let symbols: ReturnType<typeof open> | undefined;

/** libc, opened on first use (never on Windows). */
export const libc = (): ReturnType<typeof open> => (symbols ??= open());
