/**
 * What the user does at derun's terminal that the child must see: keystrokes (for transports that
 * forward input) and window resizes. Each relay returns the function that stops it.
 */
import { describeError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { readWindowSize } from "../terminal.ts";
import type { RunningChild, WindowSize } from "../transport.ts";

/**
 * Forward derun's stdin to the child byte for byte.
 *
 * On POSIX through Bun's own fd reader: `process.stdin` builds a Node stream on node:tty and
 * node:net, 3 to 4 ms of every start in a terminal (measured). The reader leaves the terminal's
 * flags alone (it stays blocking for the shell after derun). Windows keeps `process.stdin`, which
 * owns the console's input mode there.
 */
export function forwardInput(child: RunningChild, log: Logger): () => void {
  const write = child.write?.bind(child);
  if (write === undefined) return () => {};
  if (process.platform === "win32") return forwardProcessStdin(write, log);
  const reader = Bun.stdin.stream().getReader();
  let stopped = false;
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done || stopped) return;
        write(value);
      }
    } catch (error) {
      // A read error on derun's stdin (a hung-up terminal) ends the input, and never reaches the screen.
      if (!stopped) log.log("warn", "stdin_error", { error: describeError(error) });
    }
  })();
  return () => {
    stopped = true;
    reader.cancel().catch(() => {});
  };
}

function forwardProcessStdin(write: (bytes: Uint8Array) => void, log: Logger): () => void {
  const onData = (bytes: Uint8Array) => write(bytes);
  // A read error on derun's stdin (a hung-up terminal) ends the input, and never reaches the screen.
  const onError = (error: Error) => log.log("warn", "stdin_error", { error: describeError(error) });
  process.stdin.on("data", onData);
  process.stdin.on("error", onError);
  return () => {
    process.stdin.removeListener("data", onData);
    process.stdin.removeListener("error", onError);
    process.stdin.pause();
  };
}

/**
 * Propagate window size changes of derun's terminal to the child, and sync it once now (a resize
 * during start-up happened before anyone listened), telling `onResized` each size that differs from
 * the last (`initial`, the size the child started with). The terminal may be on stderr alone
 * (`derun run -- make | tee log`), where `pipe` gives the child's stderr a terminal to resize.
 */
export function followResize(child: RunningChild, initial: WindowSize | undefined, onResized: (size: WindowSize) => void): () => void {
  const resize = child.resize?.bind(child);
  if (resize === undefined) return () => {};
  let last = initial;
  const onResize = () => {
    const size = readWindowSize(1) ?? readWindowSize(2);
    if (!size) return;
    resize(size);
    if (size.cols === last?.cols && size.rows === last.rows) return;
    last = size;
    onResized(size);
  };
  process.on("SIGWINCH", onResize);
  onResize();
  return () => process.removeListener("SIGWINCH", onResize);
}
