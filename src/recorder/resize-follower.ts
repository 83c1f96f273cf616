/**
 * derun's window size, followed by the child's: each SIGWINCH derun gets resizes the child's
 * terminal (or its stream's, in pipe mode) to derun's, and a new size is recorded.
 */
import { readWindowSize } from "../tty/terminal.ts";
import type { RunningChild, WindowSize } from "../core/transport.ts";

/** The child's window size kept in step with derun's terminal. */
export interface ResizeFollower {
  /** Gives the child derun's window size now (after a stop, during which SIGWINCH went unheard). */
  sync(): void;
  stop(): void;
}

/**
 * Propagate window size changes of derun's terminal to the child, and sync it once now (a resize
 * during start-up happened before anyone listened), telling `onResized` each size that differs from
 * the last (`initial`, the size the child started with). The terminal may be on stderr alone
 * (`derun run -- make | tee log`), where `pipe` gives the child's stderr a terminal to resize.
 */
export function followResize(child: RunningChild, initial: WindowSize | undefined, onResized: (size: WindowSize) => void): ResizeFollower {
  const resize = child.resize?.bind(child);
  if (resize === undefined) return { sync: () => {}, stop: () => {} };
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
  return { sync: onResize, stop: () => process.removeListener("SIGWINCH", onResize) };
}
