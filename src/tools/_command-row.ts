/** A shell command as derun_list_commands and derun_wait_command answer it. */
import { isRunning, redactedField, type ShownCommand } from "../transcript/index.ts";

/** One command as derun_list_commands lists it. */
export interface CommandRow {
  readonly session_id: string;
  readonly number: number;
  readonly command_line: string | null;
  readonly cwd: string | null;
  readonly exit_code: number | null;
  readonly started_at: string | null;
  readonly ended_at: string | null;
  /** Bytes of output between the command's start and end marks (null: no output range recorded); so far, when running. */
  readonly output_bytes: number | null;
  /** No end mark yet: the command is running now. */
  readonly running?: true;
  /** What the shell's marks did not say (see docs/format.md). */
  readonly missing: readonly string[];
  /** Secrets masked in command_line and cwd (absent: none). */
  readonly redacted?: number;
}

export const rowOf = (sessionId: string, r: ShownCommand, outputBytes?: number): CommandRow => ({
  session_id: sessionId,
  number: r.number,
  command_line: r.command_line,
  cwd: r.cwd,
  exit_code: r.exit_code,
  started_at: r.started_at,
  ended_at: r.ended_at,
  output_bytes: r.output_start === null ? null : (r.output_end ?? outputBytes ?? r.output_start) - r.output_start,
  missing: r.missing,
  ...(isRunning(r) ? { running: true as const } : {}),
  ...redactedField(r.redacted ?? 0),
});
