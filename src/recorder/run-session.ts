/**
 * One `derun run`: start the command through a transport, forward its bytes to the user unchanged,
 * capture them to the session, and report how it ended. The caller (the CLI) validates flags, runs
 * the retention sweep once the command runs (onStarted), hands in the transports, and turns the
 * result into derun's own exit.
 */
import { describeError } from "../core/errors.ts";
import { secretEnvFingerprints } from "../secrets/env-fingerprints.ts";
import type { Logger } from "../core/log.ts";
import type { SessionWriter, Store } from "../core/store.ts";
import { SpawnError, type ChildExit, type RunningChild, type TerminalProbe, type Transport } from "../core/transport.ts";
import { closeInheritedFds, inheritedFds } from "./inherited-fds.ts";
import { openChild, type OpenedChild, type TransportSource } from "./open-child.ts";
import { OutputPath } from "./output-path.ts";
import type { CommandFilter } from "./record-gate.ts";
import { openSession, recordingNotice, recordQuietly, unrecorded, type RecordingProblem } from "./session-recording.ts";
import { FORWARDED_SIGNALS, inheritedIgnored, relaySignals, type SignalRelay } from "./signals.ts";
import { superviseChild } from "./supervise-child.ts";
import { UserTerminal } from "./user-terminal.ts";

export interface RunRequest {
  readonly command: readonly string[];
  readonly sessionId?: string;
  readonly retentionSeconds: number;
  /** Explicit transport (built-in name, plugin path or package); the probe decides otherwise. */
  readonly transport?: string;
  readonly cwd: string;
  readonly env: Record<string, string | undefined>;
  /** A shell session: record each command from the shell's integration marks (`derun shell`). */
  readonly recordCommands?: boolean;
  /**
   * Record nothing: the person's rules keep this run out (record.ignore_dirs), or their settings
   * cannot be read (then nothing rather than everything). `notice`: the line to say, if any.
   */
  readonly unrecorded?: { readonly notice?: string };
  /** A shell's ignore rules at record time (record.ignore_commands / ignore_dirs of the settings). */
  readonly commandFilter?: CommandFilter;
  /** The argv meta.json records, when what runs differs (a shell started with derun's startup files). */
  readonly recordedCommand?: readonly string[];
}

export interface RunDeps {
  readonly store: Store;
  readonly log: Logger;
  readonly probe: TerminalProbe;
  readonly transports: TransportSource;
  /**
   * Told once, after the command ended and the terminal was restored, when the recording is
   * incomplete (a full disk): one line for derun's stderr, the only line derun adds there.
   */
  readonly notice?: (line: string) => void;
  /** Told once the command runs: work that must not delay its start (the retention sweep). */
  readonly onStarted?: () => void;
}

/** derun could not run the command: what to say, and the exit status (127/126 as a shell, else 1). */
export interface RunFailure {
  readonly kind: "failed";
  readonly exitCode: number;
  readonly message: string;
}

export type RunResult = ChildExit | RunFailure;

/** Exit status a shell uses when a command cannot be started. */
const SPAWN_EXIT: Record<SpawnError["errno"], number> = { ENOENT: 127, EACCES: 126, EOTHER: 126 };

/**
 * Run the command. Rejects only for problems found before anything ran: usage errors (DerunError
 * `invalid_session_id` / `session_exists`) and a symlink out of the state root (`unsafe_path`);
 * every later failure is recorded in the session as `failed` and returned. A state directory that
 * cannot be written (a full disk) never stops the command: it runs unrecorded, and `deps.notice`
 * hears why once it has ended (see session-recording.ts).
 */
export async function runSession(request: RunRequest, deps: RunDeps): Promise<RunResult> {
  const { store, log, probe, transports } = deps;
  const spec = transports.choose(request.transport, probe);
  let sessionId = "";
  // Handlers go in before the session is created and the child exists: a signal in the start-up
  // window reaches the child once it runs, rather than killing derun between mkdir and meta.json.
  const relay = relaySignals(FORWARDED_SIGNALS, (signal) => log.log("info", "signal_forwarded", { session_id: sessionId, signal }));
  // Under a file size limit (`ulimit -f`) derun's writes then fail with EFBIG instead of SIGXFSZ
  // killing it; exec resets a caught signal, so the command keeps the default action.
  const onFileSizeLimit = () => {};
  if (process.platform !== "win32") process.on("SIGXFSZ", onFileSizeLimit);
  const problem: RecordingProblem = {};
  try {
    if (request.unrecorded?.notice !== undefined) problem.unrecorded = request.unrecorded.notice;
    await using writer = request.unrecorded
      ? unrecorded
      : await openSession(store, sessionOptions(request, spec), log, (reason) => (problem.unrecorded = reason));
    sessionId = writer.sessionId;
    return await runRecorded(request, deps, spec, { writer, relay, problem });
  } finally {
    relay.dispose();
    if (process.platform !== "win32") process.removeListener("SIGXFSZ", onFileSizeLimit);
    const notice = recordingNotice(problem, sessionId);
    if (notice !== undefined) deps.notice?.(notice);
  }
}

/** The run once its session exists (or is known to be unrecorded). */
async function runRecorded(
  request: RunRequest,
  { log, probe, transports, onStarted }: RunDeps,
  spec: string,
  { writer, relay, problem }: { writer: SessionWriter; relay: SignalRelay; problem: RecordingProblem },
): Promise<RunResult> {
  const terminal = new UserTerminal();
  try {
    let transport: Transport;
    try {
      transport = await transports.load(spec);
    } catch (error) {
      return await fail(writer, log, 1, describeError(error), problem);
    }
    const output = new OutputPath(writer, log, {
      recordCommands: request.recordCommands ?? false,
      // A shell's session can be paused from inside it (derun pause knows it from DERUN_SESSION_ID).
      pausable: request.recordCommands ?? false,
      ...(request.commandFilter ? { filter: request.commandFilter } : {}),
    });
    const userTerminal = transport.capabilities.tty ? terminal.takeOverForChild() : undefined;
    let opened: OpenedChild;
    try {
      // The size the probe read a moment ago; a resize since then is synced once the child runs.
      const options = {
        cwd: request.cwd,
        env: request.env,
        onOutput: output.onOutput,
        outputFlow: output.flow,
        ignoredSignals: inheritedIgnored(),
        inheritedFds: inheritedFds(),
        ...(probe.stdoutIsStderr ? { mergeOutputs: true } : {}),
        ...(probe.size ? { size: probe.size } : {}),
        ...(userTerminal ? { terminal: userTerminal } : {}),
      };
      await relay.childStarting();
      opened = await openChild({
        transport,
        command: request.command,
        options,
        probe,
        transports,
        log,
        beforeFallback: () => terminal.restore(),
      });
    } catch (error) {
      terminal.restore();
      return await fail(writer, log, error instanceof SpawnError ? SPAWN_EXIT[error.errno] : 1, describeError(error), problem);
    }
    // The command has its copies: ours would only keep a pipe's reader waiting after it has ended.
    closeInheritedFds();
    if (opened.fellBack)
      problem.fellBack =
        `transport ${transport.meta.name} could not start (${opened.fallbackReason}); the command ran through ` +
        `${opened.transport.meta.name}`;
    // A terminal transport takes derun's terminal over by reading the keys typed ahead; one that
    // did not (a plugin's) still gets it raw, or its output would be post-processed twice.
    if (opened.transport.capabilities.tty) void userTerminal?.typedAhead;
    // Disposed on every way out: a child still running then is killed, never orphaned.
    await using child = opened.child;
    output.attach(child);
    if (!opened.transport.capabilities.tty) terminal.restore();
    const startedFailure = await recordStart(writer, child, opened, probe, log);
    onStarted?.();
    const exit = await superviseChild(child, opened.transport, { relay, output, terminal, log, writer, probe });

    output.gate.finish();
    const error = output.capture.failure ?? startedFailure;
    problem.capture = output.capture.failure;
    const commands = output.commands?.finish();
    problem.final = await recordQuietly(
      "writing the session's end",
      () =>
        writer.finalize({
          ...(exit.kind === "exited" ? { state: "exited", exit_code: exit.code } : { state: "signaled", signal: exit.signal }),
          ...(error === undefined ? {} : { error }),
          ...(commands ? { command_marks_seen: commands.marksSeen } : {}),
        }),
      log,
      writer.sessionId,
    );
    // Per-chunk records are debug-only; this is the aggregate of chunk_offset / chunk_size.
    log.log("info", "capture_totals", { session_id: writer.sessionId, ...output.capture.totals });
    return exit;
  } finally {
    terminal.dispose();
  }
}

const sessionOptions = (request: RunRequest, transportMode: string) => ({
  ...(request.sessionId === undefined ? {} : { sessionId: request.sessionId }),
  command: request.recordedCommand ?? request.command,
  workingDirectory: request.cwd,
  retentionSeconds: request.retentionSeconds,
  transportMode,
  ttyAttached: false,
  ...(request.recordCommands ? { recordsCommands: true } : {}),
  // What readers need to mask the values of secret-named variables, never the values (docs/secrets.md).
  ...optional("secretEnv", secretEnvFingerprints(request.env)),
});

const optional = <K extends string, V>(key: K, value: V | undefined) => (value === undefined ? {} : ({ [key]: value } as Record<K, V>));

/** meta.json gets the child's PID and the transport actually used; a failure is kept for final.json. */
async function recordStart(
  writer: SessionWriter,
  child: RunningChild,
  opened: OpenedChild,
  probe: TerminalProbe,
  log: Logger,
): Promise<string | undefined> {
  const { transport } = opened;
  const size = probe.size ? { size: probe.size } : {};
  const failure = await recordQuietly(
    "recording the child's PID",
    () =>
      writer.started({
        pid: child.pid,
        transportMode: transport.meta.name,
        ttyAttached: transport.capabilities.tty,
        ...size,
        ...(child.outputsMerged ? { outputsMerged: true } : {}),
      }),
    log,
    writer.sessionId,
  );
  // The writer logs the transition to running; only the reader and the fallback are news here.
  if (child.outputReader) log.log("debug", "output_reader", { session_id: writer.sessionId, output_reader: child.outputReader });
  if (opened.fellBack) log.log("warn", "transport_fell_back", { session_id: writer.sessionId, transport_mode: transport.meta.name });
  return failure;
}

async function fail(writer: SessionWriter, log: Logger, exitCode: number, message: string, problem: RecordingProblem): Promise<RunResult> {
  problem.final = await recordQuietly(
    "writing the session's end",
    () => writer.finalize({ state: "failed", error: message }),
    log,
    writer.sessionId,
  );
  return { kind: "failed", exitCode, message };
}
