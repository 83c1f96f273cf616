/**
 * The kernel32 calls of the pseudo console, through `bun:ffi` (x64 only: HANDLE is an i64 here, so
 * INVALID_HANDLE_VALUE comes back exactly as -1n). Bound on first use; a kernel32 without
 * CreatePseudoConsole (Windows before 10 1809) makes binding throw, which the transport reports as
 * "cannot open here", and derun falls back to pipe.
 */
import { dlopen, FFIType } from "bun:ffi";

const { i64, u32, i32, ptr, u64 } = FFIType;

const open = () =>
  dlopen("kernel32.dll", {
    CreatePipe: { args: [ptr, ptr, ptr, u32], returns: i32 },
    // COORD {SHORT X, SHORT Y} travels by value in one register: X | Y << 16.
    CreatePseudoConsole: { args: [u32, i64, i64, u32, ptr], returns: i32 },
    ResizePseudoConsole: { args: [i64, u32], returns: i32 },
    ClosePseudoConsole: { args: [i64], returns: FFIType.void },
    InitializeProcThreadAttributeList: { args: [ptr, u32, u32, ptr], returns: i32 },
    UpdateProcThreadAttribute: { args: [ptr, u32, u64, i64, u64, ptr, ptr], returns: i32 },
    DeleteProcThreadAttributeList: { args: [ptr], returns: FFIType.void },
    CreateProcessW: { args: [ptr, ptr, ptr, ptr, i32, u32, ptr, ptr, ptr, ptr], returns: i32 },
    WriteFile: { args: [i64, ptr, u32, ptr, ptr], returns: i32 },
    TerminateProcess: { args: [i64, u32], returns: i32 },
    CloseHandle: { args: [i64], returns: i32 },
    GetLastError: { args: [], returns: u32 },
  }).symbols;

let symbols: ReturnType<typeof open> | undefined;
export const kernel32 = (): ReturnType<typeof open> => (symbols ??= open());

/** The calls the I/O threads make (conpty-io.worker.ts): each blocks its own thread only. */
export const openBlockingCalls = () =>
  dlopen("kernel32.dll", {
    ReadFile: { args: [i64, ptr, u32, ptr, ptr], returns: i32 },
    WaitForSingleObject: { args: [i64, u32], returns: u32 },
    GetExitCodeProcess: { args: [i64, ptr], returns: i32 },
    GetLastError: { args: [], returns: u32 },
  }).symbols;

/** A NUL-terminated UTF-16 string for the W functions. */
export const wide = (text: string): Buffer => Buffer.from(`${text}\0`, "utf16le");
