/**
 * The terminal probe: asks the OS (isatty, i.e. a terminal ioctl on the fd) whether derun's
 * standard streams are terminals. A character device such as /dev/null is not a terminal, which is
 * why this is not an fstat check.
 */
import { sameOpenFile } from "./same-open-file.ts";
import { isTerminal, readWindowSize } from "./terminal.ts";
import type { TerminalProbe } from "../core/transport.ts";

/** Probes fds 0, 1 and 2, whether 1 and 2 are one stream, and, when stdout is a terminal, its window size. */
export function probeTerminal(): TerminalProbe {
  const stdoutIsTty = isTerminal(1);
  const size = stdoutIsTty ? readWindowSize(1) : undefined;
  return {
    stdinIsTty: isTerminal(0),
    stdoutIsTty,
    stderrIsTty: isTerminal(2),
    stdoutIsStderr: sameOpenFile(1, 2),
    platform: process.platform,
    ...(size ? { size } : {}),
  };
}
