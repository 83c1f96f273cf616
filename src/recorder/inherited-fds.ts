/**
 * The descriptors above 2 that derun's caller left open (`cat <(echo hi)`'s /dev/fd/63, `3>&1`,
 * `exec 4<file` in a script): the command gets each at the same number, as exec would leave it.
 * Bun marks every fd from 4 up close-on-exec at start-up and its spawn passes only the stdio it is
 * given, so derun lists them itself: at its first line (src/cli/index.ts imports this module first
 * and calls {@link takeInheritedFds}), before it opens a file of its own. Linux only (the list is
 * read from /proc/self/fd).
 *
 * What Bun itself has open by then is an epoll and an eventfd (`anon_inode:[eventpoll]`,
 * `anon_inode:[eventfd]`), at whatever numbers were free: every `anon_inode:` descriptor is taken
 * for Bun's and not passed on (an inherited pidfd, signalfd or inotify is lost; docs/known-gaps.md).
 * Bun's loader threads open source files for a moment (seen with strace, not at that instant): a
 * listed number is passed on, and closed, only while it is still the file it was when listed.
 */
import { closeSync, fstatSync, readdirSync, readlinkSync } from "node:fs";

/** A listed descriptor and the file it was then (device and inode), undefined when it was closed already. */
interface Listed {
  readonly fd: number;
  readonly file: string | undefined;
}

let taken: readonly Listed[] | undefined;

/**
 * Lists the inherited descriptors. Only the CLI entry calls it, first thing: called later, in a
 * process that opened files of its own (a test runner), it would take those for the caller's.
 */
export function takeInheritedFds(): void {
  if (taken !== undefined) return;
  taken = process.platform === "linux" ? readInherited() : [];
}

/**
 * The descriptors the command gets at their own numbers (sorted); none unless {@link takeInheritedFds}
 * ran. Only those still the file they were when listed: one a thread of the runtime had open for a
 * moment then, closed since and its number taken by a file of derun's, is not the caller's.
 */
export const inheritedFds = (): readonly number[] => stillListed().map((listed) => listed.fd);

/**
 * Once the command has its copies, derun closes its own: a pipe's reader then sees its end when
 * the command (and whatever it left running) closes it, not when derun exits. The descriptor Bun
 * talks to a parent through (`NODE_CHANNEL_FD`) stays.
 */
export function closeInheritedFds(): void {
  const channel = Number(process.env.NODE_CHANNEL_FD ?? Number.NaN);
  // Never a file of derun's that took a listed number since.
  for (const { fd } of stillListed()) {
    if (fd === channel) continue;
    try {
      closeSync(fd);
    } catch {
      // Closed already: nothing of derun's held it.
    }
  }
  taken = [];
}

/**
 * The listed descriptors that are still the file they were. Close-on-exec cannot tell the caller's
 * from the runtime's: Bun marks every fd from 4 up close-on-exec at start-up (close_range with
 * CLOSE_RANGE_CLOEXEC, before any JavaScript runs), the caller's included, and opens its own so.
 */
const stillListed = (): readonly Listed[] =>
  (taken ?? []).filter((listed) => listed.file !== undefined && fileOf(listed.fd) === listed.file);

/** Which open file `fd` is now (device and inode), undefined when it is closed. */
function fileOf(fd: number): string | undefined {
  try {
    const stat = fstatSync(fd, { bigint: true });
    return `${stat.dev}:${stat.ino}`;
  } catch {
    return undefined;
  }
}

function readInherited(): Listed[] {
  let names: string[];
  try {
    names = readdirSync("/proc/self/fd");
  } catch {
    return [];
  }
  const fds: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2) continue;
    try {
      // The directory's own fd, closed by now, fails here and is left out with the rest that do.
      if (!readlinkSync(`/proc/self/fd/${fd}`).startsWith("anon_inode:")) fds.push(fd);
    } catch {
      // Gone: nothing to pass.
    }
  }
  return fds.sort((a, b) => a - b).map((fd) => ({ fd, file: fileOf(fd) }));
}
