/**
 * Forwarding the child's output to derun's own stdout and stderr, unchanged.
 */
import type { DerunOutputChannel } from "../enums.ts";
import { writeAllSync } from "../write-all.ts";

/** derun's own fd for each output channel. */
export const FD_OF_CHANNEL: Record<DerunOutputChannel, number> = { pty: 1, stdout: 1, stderr: 2 };

/** The channels that derun writes to `fd`. */
export const channelsOfFd = (fd: number): DerunOutputChannel[] =>
  (Object.keys(FD_OF_CHANNEL) as DerunOutputChannel[]).filter((channel) => FD_OF_CHANNEL[channel] === fd);

/**
 * Returns the function that writes each chunk to the fd of its channel. When the reader of one of
 * derun's streams goes away (EPIPE: `derun run -- yes | head`), that stream is dropped and
 * `onBrokenPipe(fd)` is called once for it, so the child can meet the same broken pipe it would
 * have met without derun. Any other write failure (EIO after a terminal hang-up, which sends its
 * own SIGHUP) drops the stream too. Capture of later output goes on regardless.
 */
export function createForwarder(onBrokenPipe: (fd: number) => void): (channel: DerunOutputChannel, bytes: Uint8Array) => void {
  const broken = new Set<number>();
  return (channel, bytes) => {
    const fd = FD_OF_CHANNEL[channel];
    if (broken.has(fd)) return;
    try {
      writeAllSync(fd, bytes);
    } catch (error) {
      // Throwing here would only break the transport's read loop.
      broken.add(fd);
      if ((error as NodeJS.ErrnoException).code === "EPIPE") onBrokenPipe(fd);
    }
  };
}
