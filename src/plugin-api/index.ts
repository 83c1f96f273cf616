/**
 * `derun/plugin`: everything a transport needs, and the only module the built-in transports import.
 *
 * A transport default-exports `defineTransport({ meta, capabilities, supports, open })` and rejects
 * `open()` with a {@link SpawnError} when the command itself cannot start. derun serves this module
 * to the plugins it loads (src/plugins/loader.ts), so a plugin gets the host's own classes and needs
 * no copy of derun beside it. The conformance suite is `derun/plugin/testing`.
 */
export type { DerunOutputChannel } from "../core/enums.ts";
export type {
  ChildExit,
  ChildJob,
  DirectInput,
  OutputFlow,
  OutputShow,
  ShowControl,
  ShowOutcome,
  RunningChild,
  TerminalProbe,
  Transport,
  TransportCapabilities,
  TransportMeta,
  TransportOpenOptions,
  UserTerminalState,
  WindowSize,
} from "../core/transport.ts";
export { defineTransport, SpawnError } from "../core/transport.ts";

// Starting a child and reporting how it ended.
export { childExitOf, spawnIgnoring, spawnStdio, toSpawnError } from "./spawn.ts";
export { DrainWindow, systemClock, type DrainClock, type DrainProbes, type DrainWindowOptions } from "./drain-window.ts";

// Reading its output.
export { pumpStream, type ChunkReader } from "../io/pump.ts";
export { openStreamReader, type OutputStream, type StreamReader, type StreamReaderOptions } from "../io/stream-reader.ts";
export { openFifoPipe, type FifoPipe } from "../io/fifo-pipe.ts";
export { openStreamPty, type StreamPty } from "../pty/stream-pty.ts";
export { forwardRest } from "../io/forward-rest.ts";

// derun's own terminal.
export { isTerminal, readWindowSize } from "../tty/terminal.ts";

// A child's own terminal (PTY transports): a PTY with the user's modes (read a record at a time at
// derun's terminal's pace on Linux, Bun's Terminal elsewhere), a session leader for job control, and
// the stops of a child without one.
export { openChildPty, type ChildPty, type ChildPtyOptions } from "../pty/child-pty.ts";
export {
  LeaderExecError,
  leaderUnavailable,
  startUnderLeader,
  StopReports,
  type LeaderJob,
  type LeaderRequest,
} from "../pty/leader.ts";
export { watchStops } from "../pty/stop-watch.ts";
