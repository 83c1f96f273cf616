/**
 * Forwarding the child's output to derun's own stdout and stderr, unchanged.
 */
import type { DerunOutputChannel } from "../enums.ts";
import { writeAllSync } from "../write-all.ts";

const FD_OF_CHANNEL: Record<DerunOutputChannel, number> = { pty: 1, stdout: 1, stderr: 2 };

/**
 * Returns the function that writes each chunk to the fd of its channel. When the reader of one of
 * derun's streams goes away (EPIPE: `derun run -- yes | head`), that stream is dropped and
 * `onBrokenPipe` is called once, so the child can be ended the way it would have been without derun
 * (SIGPIPE). Any other write failure drops the stream too. Capture of later output goes on regardless.
 */
export function createForwarder(onBrokenPipe: () => void): (channel: DerunOutputChannel, bytes: Uint8Array) => void {
  const broken = new Set<number>();
  return (channel, bytes) => {
    const fd = FD_OF_CHANNEL[channel];
    if (broken.has(fd)) return;
    try {
      writeAllSync(fd, bytes);
    } catch (error) {
      // Any failure means the stream is gone (EPIPE; EIO after a terminal hang-up, which sends
      // its own SIGHUP). Throwing here would only break the transport's read loop.
      if ((error as NodeJS.ErrnoException).code === "EPIPE" && broken.size === 0) onBrokenPipe();
      broken.add(fd);
    }
  };
}
