/**
 * Strict parsing of `derun run` flags. Everything after the first `--` is the command, untouched:
 * `derun run -- grep --help` runs grep with `--help`.
 */
import { DEFAULT_RETENTION_SECONDS } from "../core/store.ts";
import { isSessionRef, validateSessionId } from "../file-store/index.ts";
import { parseRetentionSeconds } from "./duration.ts";
import { parseFlags, type FlagDefs } from "./flags.ts";
import { STATE_ROOT_FLAG } from "./state-root.ts";
import { bounded, shown, usageError } from "./usage.ts";

export interface RunArgs {
  readonly command: readonly string[];
  readonly sessionId?: string;
  readonly retentionSeconds: number;
  readonly transport?: string;
  /** `--state-root`, when given (it wins over DERUN_STATE_ROOT). */
  readonly stateRoot?: string;
  /** `--verbose`: say when the person's rules keep a run out of the record. */
  readonly verbose?: boolean;
}

/** The flags of `derun run` (and `derun shell`); `--help` renders these. */
export const RUN_FLAGS = {
  "session-id": {
    type: "string",
    description: "Record under this id (letters, digits, . _ -; at most 128). Default: a new ULID.",
  },
  retention: {
    type: "string",
    description: "Keep the transcript this long after the command ends, in whole seconds: 3600, 90m, 24h. Default: 24h.",
  },
  transport: {
    type: "string",
    description:
      "posix-pty, windows-conpty, pipe, or a plugin's path or package. Default: a PTY when stdin, stdout and stderr are terminals, " +
      "else pipe. Env: DERUN_TRANSPORT.",
  },
  "state-root": STATE_ROOT_FLAG,
  verbose: {
    type: "boolean",
    description: "Say so when the settings' record.ignore_dirs keep this run out of the record (silent otherwise).",
  },
} as const satisfies FlagDefs;

/**
 * @param flags the arguments between `run` and `--`
 * @param command the arguments after `--`, or undefined when there was no `--`
 */
export function parseRunArgs(
  flags: readonly string[],
  command: readonly string[] | undefined,
  env: Record<string, string | undefined>,
): RunArgs {
  const { values, positionals } = parseFlags(flags, RUN_FLAGS);
  if (command === undefined) {
    throw usageError(
      positionals.length > 0
        ? `missing "--" before the command: derun run [flags] -- ${bounded(positionals.join(" "))}`
        : 'missing "--" and the command to run',
    );
  }
  if (positionals.length > 0) throw usageError(`unexpected argument ${shown(positionals[0]!)} before "--"`);
  if (command.length === 0) throw usageError('missing the command after "--"');

  const sessionId = values["session-id"];
  if (sessionId !== undefined) {
    try {
      validateSessionId(sessionId);
    } catch (error) {
      throw usageError((error as Error).message);
    }
    // `last` names the newest session wherever an id is read: a session recorded as `last` could not be named.
    if (isSessionRef(sessionId)) throw usageError(`invalid session id "last": it stands for the newest session`);
  }
  const transport = values.transport ?? (env.DERUN_TRANSPORT || undefined);
  return {
    command,
    retentionSeconds: values.retention === undefined ? DEFAULT_RETENTION_SECONDS : parseRetentionSeconds(values.retention),
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(transport === undefined ? {} : { transport }),
    ...(values["state-root"] === undefined ? {} : { stateRoot: values["state-root"] }),
    ...(values.verbose ? { verbose: true } : {}),
  };
}
