/**
 * Transport selection, a flat chain: an explicit choice wins; else terminals on stdin, stdout and
 * stderr get the platform's PTY transport; else `pipe`. What happens when the chosen terminal
 * transport cannot open is the run engine's (recorder/open-child.ts).
 */
import type { TerminalProbe } from "../core/transport.ts";
import type { BuiltinTransportName } from "./index.ts";

/**
 * The transport spec to load: `explicit` (from `--transport`, else `DERUN_TRANSPORT`; the caller
 * reads both) when given and not empty, otherwise the probe's choice.
 */
export function chooseTransport(explicit: string | undefined, probe: TerminalProbe): string {
  if (explicit !== undefined && explicit.trim() !== "") return explicit;
  return probedTransport(probe);
}

/** The built-in transport the probe alone selects. */
function probedTransport(probe: TerminalProbe): BuiltinTransportName {
  // All three, not just stdin and stdout: a PTY serves every fd of the child, so with stderr
  // redirected (`derun run -- make 2>err`) the child's errors would land on the screen instead of
  // the file. `pipe` gives each stream what derun has: a terminal of its own where derun's is one.
  if (!(probe.stdinIsTty && probe.stdoutIsTty && probe.stderrIsTty)) return "pipe";
  return probe.platform === "win32" ? "windows-conpty" : "posix-pty";
}
