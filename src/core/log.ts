/**
 * The Logger interface: derun's own diagnostics. Never the child's output, never secrets
 * (no environment values, no output bytes): only the structured fields derun defines
 * (`session_id`, `transport_mode`, `tty_attached`, `chunk_offset`, `chunk_size`,
 * `state_transition`, `exit_code`, `signal`, `cleanup_result`, `cleanup_reason`, `output_reader`) and
 * error text.
 *
 * The file sink (src/file-store/log-sink.ts) writes JSONL under the state root; it never writes to the
 * child's streams.
 */

export type LogLevel = "debug" | "info" | "warn" | "error";

export type LogFields = Readonly<Record<string, string | number | boolean | null | undefined>>;

export interface Logger {
  /** Record one event. Must not throw and must not block for long: logging never disturbs a run. */
  log(level: LogLevel, event: string, fields?: LogFields): void;
  /** Whether `debug` records are kept, so hot paths can skip building them. */
  readonly debugEnabled: boolean;
}

/** A logger that drops everything (tests, and the moment before the state root is known). */
export const silentLogger: Logger = { log() {}, debugEnabled: false };
