/**
 * Waiting in tests: for the state a test needs (a process state, a line, a file), never for a
 * fixed time, so that a test passes on a loaded machine and fails only when the state never comes.
 */

export interface UntilOptions {
  /** Fail after this long (default 30 s: a loaded machine is slow, never this slow). */
  readonly timeoutMs?: number;
  /** Look again after this long (default 10 ms). */
  readonly everyMs?: number;
}

/** Looks until `look()` finds something (anything but undefined) and resolves with it; fails naming `what` at the timeout. */
export async function until<T>(what: string | (() => string), look: () => T | undefined, options: UntilOptions = {}): Promise<T> {
  const { timeoutMs = 30_000, everyMs = 10 } = options;
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const found = look();
    if (found !== undefined) return found;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${typeof what === "string" ? what : what()}`);
    await Bun.sleep(everyMs);
  }
}

/** Until `holds()` is true. */
export const untilTrue = (what: string | (() => string), holds: () => boolean, options?: UntilOptions): Promise<true> =>
  until(what, () => holds() || undefined, options);
