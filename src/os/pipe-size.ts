/**
 * Growing a pipe's kernel buffer (Linux: F_SETPIPE_SZ), best effort. `derun mcp` answers a page of
 * output in one line of 90-180 KB; through the default 64 KiB pipe each answer took several writes,
 * each waiting for the client to read the one before (docs/performance.md).
 */
import * as fs from "node:fs";
import { libcPipes } from "./libc.ts";

const F_SETPIPE_SZ = 1031;
const F_GETPIPE_SZ = 1032;

/**
 * Grows the pipe on `fd` to `bytes` (at most the system's pipe-max-size); false when `fd` is no pipe
 * or it could not. A pipe already as large is left as it is: F_SETPIPE_SZ sets the size, and a
 * client (or a user with pipe-max-size raised) may have made it larger.
 */
export function growPipe(fd: number, bytes: number): boolean {
  if (process.platform !== "linux") return false;
  try {
    if (!fs.fstatSync(fd).isFIFO()) return false;
    const pipes = libcPipes();
    if (pipes.fcntl(fd, F_GETPIPE_SZ, 0) >= bytes) return true;
    return pipes.fcntl(fd, F_SETPIPE_SZ, bytes) >= 0;
  } catch {
    return false;
  }
}
