/**
 * The terminal probe: asks the OS (isatty, i.e. a terminal ioctl on the fd) whether derun's
 * standard streams are terminals. A character device such as /dev/null is not a terminal, which is
 * why this is not an fstat check.
 */
import tty from "node:tty";
import type { TerminalProbe, WindowSize } from "./transport.ts";

/** Probes fds 0, 1 and 2 and, when stdout is a terminal, its window size. */
export function probeTerminal(): TerminalProbe {
  const stdoutIsTty = tty.isatty(1);
  const size = stdoutIsTty ? windowSizeOfStdout() : undefined;
  return {
    stdinIsTty: tty.isatty(0),
    stdoutIsTty,
    stderrIsTty: tty.isatty(2),
    platform: process.platform,
    ...(size ? { size } : {}),
  };
}

/** The window size of the terminal on stdout (TIOCGWINSZ), or undefined if it reports none. */
export function windowSizeOfStdout(): WindowSize | undefined {
  const { columns, rows } = process.stdout;
  return columns > 0 && rows > 0 ? { cols: columns, rows } : undefined;
}
