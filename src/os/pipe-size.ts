/**
 * Growing a pipe's kernel buffer (Linux: F_SETPIPE_SZ), best effort. `derun mcp` answers a page of
 * output in one line of 90-180 KB; through the default 64 KiB pipe each answer took several writes,
 * each waiting for the client to read the one before (docs/performance.md).
 */
import * as fs from "node:fs";
import { libcPipes } from "./libc.ts";

const F_SETPIPE_SZ = 1031;

/** Grows the pipe on `fd` to `bytes` (at most the system's pipe-max-size); false when `fd` is no pipe or it could not. */
export function growPipe(fd: number, bytes: number): boolean {
  if (process.platform !== "linux") return false;
  try {
    if (!fs.fstatSync(fd).isFIFO()) return false;
    return libcPipes().fcntl(fd, F_SETPIPE_SZ, bytes) >= 0;
  } catch {
    return false;
  }
}
