/**
 * A real pipe for one output stream of the child. Not Bun.spawn's `stdout: "pipe"`, a socketpair:
 * through a socket `echo x > /dev/stderr` fails with ENXIO and `test -p /dev/stdout` is false.
 * derun's read end is non-blocking (its reader thread polls it and can be stopped; Bun's fd reader
 * only polls such an fd); the child's end is blocking (a non-blocking stdout gets EAGAIN and loses
 * output).
 *
 * Linux: pipe2, then fcntl(O_NONBLOCK) on derun's end alone, and the pipe grown to 256 KiB
 * (F_SETPIPE_SZ): at the default 64 KiB each read brings less and throughput falls well below a
 * socket's. Elsewhere fcntl is not safe through bun:ffi (variadic: Apple arm64 passes such arguments
 * on the stack), so each end is its own open() of a FIFO in a private directory, unlinked at once;
 * macOS grows its pipes by itself. mkfifo and pipe2 come from os/libc.ts (not variadic).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ptr } from "bun:ffi";
import { libcPipe2, libcPipes } from "../os/libc.ts";

const linux = process.platform === "linux";
const F_SETFL = 4;
const F_SETPIPE_SZ = 1031;
/** Linux's values (asm-generic; x86-64 and arm64 alike). */
const O_NONBLOCK = 0o4000;
const O_CLOEXEC = 0o2000000;
const PIPE_BYTES = 256 * 1024;

/** One output stream's pipe: the child writes to `writeEnd`, derun reads `readEnd`. */
export interface FifoPipe {
  /** derun's end. Non-blocking, so it is polled and reading it can be stopped (./stream-reader.ts). */
  readonly readEnd: number;
  /** Blocking. Pass as the child's stdout or stderr; derun closes its copy with {@link closeWriteEnd}. */
  readonly writeEnd: number;
  /** Close derun's copy of the write end, so the read end sees EOF once the child's copies are gone. */
  closeWriteEnd(): void;
  /** Close both ends still open. Idempotent. */
  close(): void;
}

/** Opens a pipe: pipe2 on Linux, a short-lived FIFO elsewhere. Throws when that fails (no libc, no writable temp dir). */
export function openFifoPipe(): FifoPipe {
  if (linux) return openLinuxPipe();
  const c = libcPipes();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "derun-fifo-")); // mode 0700
  const fifo = path.join(dir, "p");
  let readEnd = -1;
  try {
    if (c.mkfifo(Buffer.from(`${fifo}\0`), 0o600) !== 0) throw new Error(`mkfifo failed in ${dir}`);
    const { O_RDONLY, O_WRONLY, O_NONBLOCK } = fs.constants;
    readEnd = fs.openSync(fifo, O_RDONLY | O_NONBLOCK); // does not wait for a writer
    const writeEnd = fs.openSync(fifo, O_WRONLY); // does not block: a reader exists
    return pipeOf(readEnd, writeEnd);
  } catch (error) {
    if (readEnd >= 0) fs.closeSync(readEnd);
    throw error;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function openLinuxPipe(): FifoPipe {
  const fds = new Int32Array(2);
  if (libcPipe2().pipe2(ptr(fds), O_CLOEXEC) !== 0) throw new Error("pipe2 failed");
  const [readEnd, writeEnd] = [fds[0]!, fds[1]!];
  const c = libcPipes();
  if (c.fcntl(readEnd, F_SETFL, O_NONBLOCK) !== 0) {
    fs.closeSync(readEnd);
    fs.closeSync(writeEnd);
    throw new Error("fcntl(F_SETFL, O_NONBLOCK) failed on a pipe");
  }
  c.fcntl(readEnd, F_SETPIPE_SZ, PIPE_BYTES); // best effort, as above
  return pipeOf(readEnd, writeEnd);
}

function pipeOf(readEnd: number, writeEnd: number): FifoPipe {
  const open = { read: true, write: true };
  const closeWriteEnd = () => {
    if (open.write) fs.closeSync(writeEnd);
    open.write = false;
  };
  return {
    readEnd,
    writeEnd,
    closeWriteEnd,
    close: () => {
      closeWriteEnd();
      if (open.read) fs.closeSync(readEnd);
      open.read = false;
    },
  };
}
