/**
 * What a background process the command left running still writes into its output stream, after
 * derun has ended: bare, `cmd > f` lets it write to `f` for as long as it runs, and `cmd | cat` reads
 * it until the last writer closes. derun cannot wait that long (a grandchild may hold the stream for
 * ever, and the caller's shell waits for derun), and closing its end would give the grandchild
 * SIGPIPE and lose the rest. So derun hands its end to a `cat` of its own, which copies the rest to
 * derun's own fd (the file, pipe or terminal it would have reached) and ends at the stream's end.
 * Those bytes are not recorded: the session ended with the command. Linux only (clearing O_NONBLOCK
 * takes fcntl, which bun:ffi calls correctly only there).
 */
import { libcPipes } from "../os/libc.ts";

const F_GETFL = 3;
const F_SETFL = 4;
const O_NONBLOCK = 0o4000;

/**
 * Starts a `cat` that reads `fd` (derun's end of a stream, which derun no longer reads) and writes to
 * derun's fd `to`; `true` once it runs. The caller then closes its own `fd`.
 */
export function forwardRest(fd: number, to: number): boolean {
  if (process.platform !== "linux") return false;
  const cat = Bun.which("cat") ?? "/bin/cat";
  try {
    // cat reads the shared open file: a non-blocking one would end it at the first empty read.
    const { fcntl } = libcPipes();
    const flags = fcntl(fd, F_GETFL, 0);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) return false;
    const proc = Bun.spawn([cat], { stdio: [fd, to, "ignore"] });
    // derun does not wait for it: it ends when the last writer closes the stream.
    proc.unref();
    return true;
  } catch {
    return false;
  }
}
