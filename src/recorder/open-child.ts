/**
 * Starting the child through the chosen transport, with the one fallback derun allows: a
 * terminal transport, built-in or third-party, that cannot open here (no PTY could be allocated, no
 * ConPTY) gives way to the fallback (`pipe`), announced in the log and, once the command has ended,
 * on derun's stderr (run-session.ts). A SpawnError is the command's own
 * failure and would fail the same way through any transport, so it is never a reason to fall back;
 * nor is the failure of a transport that is not a terminal (a sandbox that refuses to run must not
 * run the command unsandboxed). A transport that says it cannot run here at all was chosen
 * explicitly (the probe picks only what runs), and is refused rather than replaced. Nor does one
 * that failed after the command started (it handed over output): the fallback would run the command
 * a second time.
 */
import { describeError } from "../core/errors.ts";
import type { Logger } from "../core/log.ts";
import { SpawnError, type RunningChild, type TerminalProbe, type Transport, type TransportOpenOptions } from "../core/transport.ts";

/** Where a run gets its transports: the registry and loader of src/plugins, handed in by the CLI. */
export interface TransportSource {
  /** The spec to load for this run: `explicit` when given, else the one the probe selects. */
  choose(explicit: string | undefined, probe: TerminalProbe): string;
  /** A transport by built-in name, file path or package name. Rejects with DerunError `plugin`. */
  load(spec: string): Promise<Transport>;
  /** The built-in a terminal transport gives way to when it cannot open here. */
  readonly fallback: string;
}

export interface OpenChildRequest {
  readonly transport: Transport;
  readonly command: readonly string[];
  readonly options: TransportOpenOptions;
  readonly probe: TerminalProbe;
  readonly transports: TransportSource;
  readonly log: Logger;
  /** Before the fallback's child starts: derun's terminal gets the user's modes back (it inherits it). */
  readonly beforeFallback?: () => void;
}

export interface OpenedChild {
  /** The transport that is actually running the child (the fallback after a fallback). */
  readonly transport: Transport;
  readonly child: RunningChild;
  readonly fellBack: boolean;
  /** After a fallback: why the chosen transport could not open. */
  readonly fallbackReason?: string;
}

/** Opens the child on `transport`, or on the fallback as above. Rejects with the reason it could not. */
export async function openChild(request: OpenChildRequest): Promise<OpenedChild> {
  const { transport, command, options, probe } = request;
  if (!transport.supports(probe)) {
    throw new Error(`transport "${transport.meta.name}" cannot run here (${process.platform}; ${describeTerminals(probe)})`);
  }
  let started = false;
  const onOutput: TransportOpenOptions["onOutput"] = (channel, bytes) => {
    started = true;
    options.onOutput(channel, bytes);
  };
  try {
    return { transport, child: await transport.open(command, { ...options, onOutput }), fellBack: false };
  } catch (error) {
    if (error instanceof SpawnError || !transport.capabilities.tty) throw error;
    if (started) throw new Error(`transport "${transport.meta.name}" failed after the command started: ${describeError(error)}`);
    return fallBack(request, describeError(error));
  }
}

async function fallBack(request: OpenChildRequest, reason: string): Promise<OpenedChild> {
  const { transport, transports, command, options, log } = request;
  log.log("warn", "transport_fallback", { transport_mode: transport.meta.name, error: reason, fallback: transports.fallback });
  const fallback = await transports.load(transports.fallback);
  request.beforeFallback?.();
  return { transport: fallback, child: await fallback.open(command, options), fellBack: true, fallbackReason: reason };
}

/** For error messages: which of derun's standard streams are terminals. */
const describeTerminals = (probe: TerminalProbe): string =>
  (["stdin", "stdout", "stderr"] as const).map((name) => `${name} ${probe[`${name}IsTty`] ? "a terminal" : "not a terminal"}`).join(", ");
