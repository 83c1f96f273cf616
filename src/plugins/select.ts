/**
 * Transport selection, a flat chain: an explicit choice wins; else terminals on stdin, stdout and
 * stderr get the platform's PTY transport; else `pipe`. And the one fallback the contract allows:
 * a PTY transport that cannot be opened (not the command failing) gives way to `pipe`.
 */
import type { DerunTransportMode } from "../core/enums.ts";
import { describeError } from "../core/errors.ts";
import type { Logger } from "../core/log.ts";
import { loadTransport } from "./loader.ts";
import { SpawnError, type RunningChild, type TerminalProbe, type Transport, type TransportOpenOptions } from "../core/transport.ts";

/**
 * The transport spec to load: `explicit` (from `--transport`, else `DERUN_TRANSPORT`; the caller
 * reads both) when given and not empty, otherwise the probe's choice.
 */
export function chooseTransport(explicit: string | undefined, probe: TerminalProbe): string {
  if (explicit !== undefined && explicit.trim() !== "") return explicit;
  return probedTransport(probe);
}

/** The built-in transport the probe alone selects. */
function probedTransport(probe: TerminalProbe): DerunTransportMode {
  // All three, not just stdin and stdout: a PTY serves every fd of the child, so with stderr
  // redirected (`derun run -- make 2>err`) the child's errors would land on the screen instead of
  // the file. `pipe` gives each stream what derun has: a terminal of its own where derun's is one.
  if (!(probe.stdinIsTty && probe.stdoutIsTty && probe.stderrIsTty)) return "pipe";
  return probe.platform === "win32" ? "windows-conpty" : "posix-pty";
}

export interface OpenWithFallbackRequest {
  readonly transport: Transport;
  readonly command: readonly string[];
  readonly options: TransportOpenOptions;
  readonly log: Logger;
}

export interface Opened {
  /** The transport that is actually running the child (`pipe` after a fallback). */
  readonly transport: Transport;
  readonly child: RunningChild;
  readonly fellBack: boolean;
}

/**
 * Opens the child. When a PTY transport rejects with anything but a {@link SpawnError} (no PTY
 * could be allocated, ConPTY missing), logs the fallback and opens `pipe` instead. A SpawnError
 * is the command's own failure and would fail the same way through `pipe`, so it propagates.
 */
export async function openWithFallback(request: OpenWithFallbackRequest): Promise<Opened> {
  const { transport, command, options, log } = request;
  try {
    return { transport, child: await transport.open(command, options), fellBack: false };
  } catch (error) {
    if (error instanceof SpawnError || !transport.capabilities.tty) throw error;
    log.log("warn", "transport_fallback", {
      transport_mode: transport.meta.name,
      error: describeError(error),
      fallback: "pipe",
    });
    const pipe = await loadTransport("pipe");
    return { transport: pipe, child: await pipe.open(command, options), fellBack: true };
  }
}
