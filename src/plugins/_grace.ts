/**
 * The bounded wait after a child has exited, shared by the built-in transports.
 *
 * Once the child is gone, its output stream normally ends within a millisecond or two (the kernel
 * hangs up a PTY when its session leader exits; a pipe reaches EOF when the last writer closes).
 * A background grandchild that inherited the stream can keep it open for ever, though, and derun
 * must not wait for it: the contract wants derun to end with its child.
 */

/**
 * How long to keep reading after the child has exited before giving up on the stream's end.
 * Long enough for a busy machine to deliver what the kernel already holds (measured: the end
 * arrives within ~1 ms of the exit here), short enough that nobody notices the wait when a
 * grandchild holds the stream.
 */
export const POST_EXIT_GRACE_MS = 200;

/**
 * Resolves when `streamEnd` resolves or `ms` have passed, whichever is first; `true` when the
 * stream ended in time. The timer never keeps the event loop alive after the race is decided.
 */
export async function waitForEndWithin(streamEnd: Promise<unknown>, ms: number = POST_EXIT_GRACE_MS): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([streamEnd.then(() => true as const), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
