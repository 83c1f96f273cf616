/**
 * One `derun run`: start the command through a transport, forward its bytes to the user unchanged,
 * capture them to the session, and report how it ended. The caller (the CLI) validates flags and
 * runs the retention sweep first, and turns the result into derun's own exit.
 */
import { describeError } from "../errors.ts";
import type { DerunOutputChannel } from "../enums.ts";
import type { Logger } from "../log.ts";
import { loadTransport } from "../../plugins/loader.ts";
import type { SessionWriter, Store } from "../store.ts";
import type { ChildExit, RunningChild, TerminalProbe, Transport } from "../transport.ts";
import { SpawnError } from "../transport.ts";
import { chooseTransport, openWithFallback } from "../../plugins/select.ts";
import { Capture } from "./capture.ts";
import { openSession, recordQuietly } from "./session-recording.ts";
import { channelsOfFd, createForwarder } from "./forward.ts";
import { FORWARDED_SIGNALS, relaySignals, TERMINAL_SIGNALS } from "./signals.ts";
import { enterRawMode, inForegroundOfTerminal, readWindowSize, type RawModeHandle } from "../terminal.ts";

export interface RunRequest {
  readonly command: readonly string[];
  readonly sessionId?: string;
  readonly retentionSeconds: number;
  /** Explicit transport (built-in name, plugin path or package); the probe decides otherwise. */
  readonly transport?: string;
  readonly cwd: string;
  readonly env: Record<string, string | undefined>;
}

export interface RunDeps {
  readonly store: Store;
  readonly log: Logger;
  readonly probe: TerminalProbe;
}

export type RunResult = ChildExit | { readonly kind: "failed"; readonly exitCode: number; readonly message: string };

/** Exit status a shell uses when a command cannot be started. */
const SPAWN_EXIT: Record<SpawnError["errno"], number> = { ENOENT: 127, EACCES: 126, EOTHER: 126 };

/**
 * Run the command. Rejects only for usage-level problems found before anything ran
 * (DerunError `invalid_session_id` / `session_exists`); every later failure is recorded in the
 * session as `failed` and returned. A state directory that cannot be written never stops the
 * command: it runs unrecorded (see session-recording.ts).
 */
export async function runSession(request: RunRequest, deps: RunDeps): Promise<RunResult> {
  const { store, log, probe } = deps;
  const transportName = chooseTransport(request.transport, probe);
  const session = {
    ...(request.sessionId === undefined ? {} : { sessionId: request.sessionId }),
    command: request.command,
    workingDirectory: request.cwd,
    retentionSeconds: request.retentionSeconds,
    transportMode: transportName,
    ttyAttached: false,
  };
  await using writer = await openSession(store, session, log);
  const sessionId = writer.sessionId;
  const logFields = { session_id: sessionId };

  // Handlers go in before the child exists, so a signal in the start-up window reaches it.
  const relay = relaySignals(FORWARDED_SIGNALS, (signal) => log.log("info", "signal_forwarded", { ...logFields, signal }));
  let raw: RawModeHandle | undefined;
  const restoreTerminal = () => raw?.restore();
  process.on("exit", restoreTerminal);
  try {
    let transport: Transport;
    try {
      transport = await loadTransport(transportName);
    } catch (error) {
      return await fail(writer, log, 1, describeError(error));
    }
    if (!transport.supports(probe)) {
      return await fail(writer, log, 1, `transport "${transport.meta.name}" cannot run here (${process.platform}; ${describeTerminals(probe)})`);
    }

    const capture = new Capture(writer, log);
    let child: RunningChild | undefined;
    // A broken pipe can come before `open()` has returned the child: remember it until then.
    const brokenFds = new Set<number>();
    const forward = createForwarder((fd) => {
      brokenFds.add(fd);
      if (child) passBrokenPipe(child, fd);
    }, log);
    const onOutput = (channel: DerunOutputChannel, bytes: Uint8Array) => {
      forward.write(channel, bytes); // the user's stream first: capture must never delay or alter it
      capture.append(channel, bytes);
    };

    // Raw before the child starts, or its first output is post-processed by our terminal too.
    if (transport.capabilities.tty) raw = enterRawMode(0);
    let opened: Awaited<ReturnType<typeof openWithFallback>>;
    try {
      // Read by the probe a moment ago; a resize since then is synced once the child runs (followResize).
      const size = probe.size;
      opened = await openWithFallback({
        transport,
        command: request.command,
        options: { cwd: request.cwd, env: request.env, onOutput, ...(size ? { size } : {}) },
        log,
      });
    } catch (error) {
      restoreTerminal();
      const exitCode = error instanceof SpawnError ? SPAWN_EXIT[error.errno] : 1;
      return await fail(writer, log, exitCode, describeError(error));
    }
    // Disposed on every way out: a child still running then is killed, never orphaned.
    await using running = opened.child;
    child = running;
    const used = opened.transport;
    for (const fd of brokenFds) passBrokenPipe(running, fd);
    if (!used.capabilities.tty) restoreTerminal();

    const startedFailure = await recordQuietly(
      "recording the child's PID",
      () => writer.started({ pid: running.pid, transportMode: used.meta.name, ttyAttached: used.capabilities.tty }),
      log,
      sessionId,
    );
    // Without a PTY of its own the child shares derun's process group: when that group is a
    // terminal's foreground, the terminal already delivered Ctrl-C and friends to the child, and
    // forwarding them again would make it see each one twice.
    const terminalSignalsReachChild = !used.capabilities.tty && inForegroundOfTerminal();
    relay.attach(running, (signal) => !(terminalSignalsReachChild && TERMINAL_SIGNALS.has(signal)));
    // The writer logs the transition to running; only the fallback is news here.
    if (opened.fellBack) log.log("warn", "transport_fell_back", { ...logFields, transport_mode: used.meta.name });

    const stopInput = used.capabilities.input === "forward" ? forwardInput(running, log) : () => {};
    // Also once now: a resize during start-up happened before anyone listened.
    const stopResize = used.capabilities.resize ? followResize(running) : () => {};
    let exit: ChildExit;
    try {
      exit = await running.exited;
    } finally {
      stopInput();
      stopResize();
      // The last bytes still on their way to the screen were written in raw mode: they land before
      // the terminal is restored (or `\n` of the child's last line would become `\r\n`).
      forward.flush();
      restoreTerminal();
    }

    const { bytes, chunks } = capture.totals;
    const error = capture.failure ?? startedFailure;
    await recordQuietly(
      "writing final.json",
      () =>
        writer.finalize({
          ...(exit.kind === "exited" ? { state: "exited", exit_code: exit.code } : { state: "signaled", signal: exit.signal }),
          ...(error === undefined ? {} : { error }),
        }),
      log,
      sessionId,
    );
    // Per-chunk records are debug-only; this is the aggregate of chunk_offset / chunk_size.
    log.log("info", "capture_totals", { ...logFields, bytes, chunks });
    return exit;
  } finally {
    relay.dispose();
    restoreTerminal();
    process.removeListener("exit", restoreTerminal);
  }
}

async function fail(writer: SessionWriter, log: Logger, exitCode: number, message: string): Promise<RunResult> {
  await recordQuietly("writing final.json", () => writer.finalize({ state: "failed", error: message }), log, writer.sessionId);
  return { kind: "failed", exitCode, message };
}

/** For error messages: which of derun's standard streams are terminals. */
const describeTerminals = (probe: TerminalProbe): string =>
  (["stdin", "stdout", "stderr"] as const).map((name) => `${name} ${probe[`${name}IsTty`] ? "a terminal" : "not a terminal"}`).join(", ");

/**
 * derun's stream `fd` lost its reader: let the child meet the broken pipe itself (its own next write
 * fails), or, when the transport cannot arrange that, send it SIGPIPE.
 */
function passBrokenPipe(child: RunningChild, fd: number): void {
  if (!child.closeOutput) return child.kill("SIGPIPE");
  for (const channel of channelsOfFd(fd)) child.closeOutput(channel);
}

/**
 * Forward derun's stdin to the child byte for byte; returns a function that stops it.
 *
 * On POSIX through Bun's own fd reader: `process.stdin` builds a Node stream on node:tty and
 * node:net, 3 to 4 ms of every start in a terminal (measured). The reader leaves the terminal's
 * flags alone (it stays blocking for the shell after derun). Windows keeps `process.stdin`, which
 * owns the console's input mode there.
 */
function forwardInput(child: RunningChild, log: Logger): () => void {
  if (process.platform === "win32") return forwardProcessStdin(child, log);
  const reader = Bun.stdin.stream().getReader();
  let stopped = false;
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done || stopped) return;
        child.write(value);
      }
    } catch (error) {
      // A read error on derun's stdin (a hung-up terminal) ends the input, and never reaches the screen.
      if (!stopped) log.log("warn", "stdin_error", { error: describeError(error) });
    }
  })();
  return () => {
    stopped = true;
    reader.cancel().catch(() => {});
  };
}

function forwardProcessStdin(child: RunningChild, log: Logger): () => void {
  const onData = (bytes: Uint8Array) => child.write(bytes);
  // A read error on derun's stdin (a hung-up terminal) ends the input, and never reaches the screen.
  const onError = (error: Error) => log.log("warn", "stdin_error", { error: describeError(error) });
  process.stdin.on("data", onData);
  process.stdin.on("error", onError);
  return () => {
    process.stdin.removeListener("data", onData);
    process.stdin.removeListener("error", onError);
    process.stdin.pause();
  };
}

/**
 * Propagate window size changes of derun's terminal to the child, and sync it once now. The
 * terminal may be on stderr alone (`derun run -- make | tee log`), where `pipe` gives the child's
 * stderr a terminal to resize.
 */
function followResize(child: RunningChild): () => void {
  const onResize = () => {
    const size = readWindowSize(1) ?? readWindowSize(2);
    if (size) child.resize(size);
  };
  process.on("SIGWINCH", onResize);
  onResize();
  return () => process.removeListener("SIGWINCH", onResize);
}
