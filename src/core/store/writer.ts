/**
 * How a session is recorded: the options that create it, what meta.json learns once the child runs,
 * and the single writer that appends its output, events and command records and ends it.
 */
import type { DerunOutputChannel } from "../enums.ts";
import type { WindowSize } from "../transport.ts";
import type { CommandRecord, PauseState, RecordGap, SecretEnvFingerprints, SessionFinal } from "./session-files.ts";

export interface CreateSessionOptions {
  /** Explicit id; must match `^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`. A ULID is generated if absent. */
  readonly sessionId?: string;
  readonly command: readonly string[];
  readonly workingDirectory: string;
  readonly retentionSeconds: number;
  readonly transportMode: string;
  readonly ttyAttached: boolean;
  /** Record the commands of a shell session (meta.json's `records_commands`). */
  readonly recordsCommands?: boolean;
  /** meta.json's `secret_env`. */
  readonly secretEnv?: SecretEnvFingerprints;
}

/** What meta.json learns once the child runs. */
export interface StartedUpdate {
  readonly pid: number;
  readonly transportMode: string;
  readonly ttyAttached: boolean;
  readonly size?: WindowSize;
  /** meta.json's `merged_output`. */
  readonly outputsMerged?: boolean;
}

/**
 * The single writer of one session (the `derun run` process). Holds `append.lock` for its whole
 * life, so a second appender blocks until it is disposed.
 */
export interface SessionWriter extends AsyncDisposable {
  readonly sessionId: string;
  readonly directory: string;
  /** Rewrite meta.json (atomically) once the child runs; the transport may differ after a fallback. */
  started(update: StartedUpdate): Promise<void>;
  /** Record that the child's window is now `size` (events.jsonl). Throws on I/O failure, like append. */
  resized(size: WindowSize, at?: Date): void;
  /** Append one finished command of a shell session (commands.jsonl). Throws on I/O failure. */
  recordCommand(record: CommandRecord): void;
  /** Say where output was left out of the transcript (gaps.jsonl). Throws on I/O failure. */
  recordGap(gap: RecordGap): void;
  /**
   * The pause asked of this recorder (pause.json, by `derun pause`): undefined when none; `until` in
   * ms when it ends by itself. A file that cannot be read asks for a pause (the person wanted one).
   */
  pauseRequest(): { readonly until?: number } | undefined;
  /** Forget the pause asked for (its `until` has passed). */
  clearPauseRequest(): void;
  /** Say the recorder is paused (paused.json), or no longer (`undefined`): what `derun pause` waits for. */
  setPaused(state: PauseState | undefined): void;
  /**
   * Append one chunk: bytes to output.bin, then its line to index.jsonl. Synchronous so chunk
   * order is the call order. Throws on I/O failure (disk full, EIO); the caller treats capture as
   * a side channel and stops capturing rather than disturbing the command.
   */
  append(channel: DerunOutputChannel, bytes: Uint8Array, at?: Date): void;
  /** Write final.json atomically. Call once. */
  finalize(final: Omit<SessionFinal, "schema_version" | "session_id" | "ended_at" | "output_lines"> & { ended_at?: string }): Promise<void>;
}
