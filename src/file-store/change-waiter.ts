/**
 * Waiting for "something ended": the next session created or removed, or a live session's
 * final.json or commands.jsonl written (a session or a shell command ended). Woken by file-change
 * notification (inotify on Linux) on the state root, sessions/ and each live session's directory,
 * with names filtered so that output being written (output.bin, index.jsonl) wakes nobody; a slow
 * safety poll covers a missed notification and a recording derun that died without a word. The
 * watches are made before the promise is returned, so a caller that looks at the store after
 * calling misses no change.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/**
 * Files whose change may mean an end: a session's final facts or its command records (and their
 * temp files), or its meta.json (a session so new that it was watched before it could be read).
 */
const ENDING = /^(final|commands|meta)\b|^\.(final|meta)|\.tmp/;

export interface ChangeWaitOptions {
  readonly root: string;
  /** Live session directories to watch. */
  readonly liveDirs: readonly string[];
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** The safety poll's period (default 1 s). */
  readonly pollMs?: number;
}

export function waitForChange(options: ChangeWaitOptions): Promise<void> {
  const { root, liveDirs, timeoutMs, signal } = options;
  const watchers: fs.FSWatcher[] = [];
  let wake!: () => void;
  const done = new Promise<void>((resolve) => (wake = resolve));
  const watch = (dir: string, relevant: (name: string | null) => boolean) => {
    try {
      const watcher = fs.watch(dir, { persistent: false }, (_event, name) => {
        if (relevant(name === null ? null : String(name))) wake();
      });
      watcher.on("error", () => wake());
      watchers.push(watcher);
    } catch {
      // not there (yet) or not watchable: the safety poll remains
    }
  };
  watch(root, (name) => name === null || name === "sessions");
  watch(path.join(root, "sessions"), () => true);
  for (const dir of liveDirs) watch(dir, (name) => name === null || ENDING.test(name));
  const poll = setTimeout(wake, Math.min(Math.max(0, timeoutMs), options.pollMs ?? 1000));
  const onAbort = () => wake();
  signal?.addEventListener("abort", onAbort, { once: true });
  if (signal?.aborted) wake();
  return done.finally(() => {
    clearTimeout(poll);
    signal?.removeEventListener("abort", onAbort);
    for (const watcher of watchers) watcher.close();
  });
}
