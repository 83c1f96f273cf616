/**
 * The shapes of a session's files under `<root>/sessions/<id>/` (docs/format.md), as the original Go
 * derun also reads them: field names are snake_case so people and other tools can read the files
 * directly. Fields are only ever added (marked "added field"), never changed.
 */
import type { DerunFinalState, DerunOutputChannel, SCHEMA_VERSION } from "../enums.ts";

/** meta.json: written before the transport starts, rewritten once with the child's PID. */
export interface SessionMeta {
  readonly schema_version: typeof SCHEMA_VERSION;
  readonly session_id: string;
  /** argv as given after `--`. */
  readonly command: readonly string[];
  readonly working_directory: string;
  /** RFC 3339. */
  readonly started_at: string;
  readonly retention_seconds: number;
  /** `posix-pty`, `windows-conpty`, `pipe`, or a third-party transport's `meta.name`. */
  readonly transport_mode: string;
  readonly tty_attached: boolean;
  /** 0 until the child runs; the child's PID after. */
  readonly pid: number;
  /** The recording derun process, for liveness. */
  readonly derun_pid: number;
  /**
   * The window size the child started with, when derun had a terminal (an added field: earlier
   * readers ignore it). Later sizes are resize events in events.jsonl.
   */
  readonly cols?: number;
  readonly rows?: number;
  /** A shell session (`derun shell`): its commands are recorded in commands.jsonl (added field). */
  readonly records_commands?: boolean;
  /**
   * The command's stdout and stderr were one stream, recorded as channel `stdout` in the order
   * written: derun's own were (`2>&1`, or both the same terminal) (added field).
   */
  readonly merged_output?: boolean;
  /**
   * Fingerprints of the secret-named variables the command started with, never their values, so a
   * reader can mask them (added field; docs/secrets.md). Never served to a reader.
   */
  readonly secret_env?: SecretEnvFingerprints;
}

/** `retention_seconds` of a run that names none, and of a session whose meta.json lacks it or is unreadable. */
export const DEFAULT_RETENTION_SECONDS = 24 * 60 * 60;

/** events.jsonl: one line per event that is not output; only resizes so far. */
export interface SessionEvent {
  readonly type: "resize";
  /** Output bytes recorded before the event: it applies to the bytes from this offset on. */
  readonly offset: number;
  readonly cols: number;
  readonly rows: number;
  /** RFC 3339 with milliseconds. */
  readonly timestamp: string;
}

/**
 * gaps.jsonl (an added file): output the terminal showed that the person kept out of the transcript
 * (`derun pause`, an ignore rule). output.bin stays contiguous: `offset` is where in it the left-out
 * bytes would have been (every cursor stays a plain offset of output.bin); `bytes` says how many.
 */
export interface RecordGap {
  readonly offset: number;
  readonly bytes: number;
  /** `paused` (derun pause) or `ignored` (a rule of the record settings; which one is not said). */
  readonly reason: "paused" | "ignored";
  /** RFC 3339 with milliseconds: the first and last left-out chunk. */
  readonly started_at: string;
  readonly ended_at: string;
}

/** The pause a session's recorder is in (paused.json, written by the recorder itself while paused). */
export interface PauseState {
  /** RFC 3339: when the recorder stopped recording. */
  readonly since: string;
  /** RFC 3339: when it resumes by itself (`derun pause --for`), if it does. */
  readonly until?: string;
}

/** index.jsonl: one line per committed chunk. */
export interface IndexRecord {
  readonly offset: number;
  readonly length: number;
  readonly channel: DerunOutputChannel;
  /** RFC 3339 with milliseconds. */
  readonly timestamp: string;
}

/** final.json: written once, atomically, when the session ends. */
export interface SessionFinal {
  readonly schema_version: typeof SCHEMA_VERSION;
  readonly session_id: string;
  readonly state: DerunFinalState;
  readonly ended_at: string;
  /** When `state` is `exited`. */
  readonly exit_code?: number;
  /** When `state` is `signaled`, e.g. `SIGTERM`. */
  readonly signal?: string;
  /** When `state` is `failed`, or when capture broke mid-run (the command itself may have exited). */
  readonly error?: string;
  /**
   * Line feeds recorded per channel (added field): with it a reader numbers the lines of a finished
   * session without counting them from the start.
   */
  readonly output_lines?: Partial<Record<DerunOutputChannel, number>>;
  /** Shell sessions: whether the shell printed any command marks (without them, no records). */
  readonly command_marks_seen?: boolean;
}

// commands.jsonl: one record per command a recorded shell ran (built by shell/commands.ts).

/** What a record lacks, and why it may be less certain. */
export type CommandGap =
  | "prompt" // no prompt mark (A or B) came before the command
  | "command_line" // no command line (633 E, or 133 C's cmdline_url)
  | "cwd" // no 633 P;Cwd= came before the command
  | "output_start" // the command ended (D) without an output-start mark (C): no output range
  | "end" // no end mark (D): closed by the next prompt or by the end of the session
  | "exit_status"; // the end mark carried no exit status

/** One command the shell ran. Field names are snake_case: records are persisted as they are. */
export interface CommandRecord {
  /** 1-based, in the order the commands started. */
  readonly number: number;
  readonly command_line: string | null;
  /** The working directory the shell reported at the prompt before the command. */
  readonly cwd: string | null;
  /** The prompt: from its start mark's first byte to just past its last input-start mark. */
  readonly prompt_start: number | null;
  readonly prompt_end: number | null;
  /** The command's output: `[output_start, output_end)`, between the marks C and D. */
  readonly output_start: number | null;
  readonly output_end: number | null;
  /** RFC 3339 with milliseconds: the times of the chunks holding C and D. */
  readonly started_at: string | null;
  readonly ended_at: string | null;
  /** From D; null when D carried none (or never came). */
  readonly exit_code: number | null;
  readonly missing: readonly CommandGap[];
}

// meta.json's `secret_env` (written by secrets/env-fingerprints.ts).

/** The meta.json field (added: earlier readers ignore it). */
export interface SecretEnvFingerprints {
  /** 32 hex digits, random per session. */
  readonly salt: string;
  readonly values: readonly SecretFingerprint[];
}

export interface SecretFingerprint {
  /** Length of the value in UTF-16 code units (= bytes for ASCII). */
  readonly length: number;
  /** {@link fingerprintTag} of the value under the salt's seed. */
  readonly tag: number;
  /** The first 16 bytes of SHA-256(salt bytes ‖ value as UTF-8), hex. */
  readonly hash: string;
}
