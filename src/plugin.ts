/**
 * `derun/plugin`: everything a third-party transport needs, and nothing else.
 *
 * A transport plugin default-exports `defineTransport({ meta, capabilities, supports, open })` and
 * rejects `open()` with a {@link SpawnError} when the command itself cannot start. At run time
 * derun serves this module to the plugins it loads (see core/plugin-loader.ts), so a plugin
 * gets the host's own `SpawnError` class and needs no copy of derun installed beside it.
 */
export type { DerunOutputChannel } from "./core/enums.ts";
export type {
  ChildExit,
  RunningChild,
  TerminalProbe,
  Transport,
  TransportCapabilities,
  TransportMeta,
  TransportOpenOptions,
  WindowSize,
} from "./core/transport.ts";
export { defineTransport, SpawnError } from "./core/transport.ts";
