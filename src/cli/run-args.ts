/**
 * Strict parsing of `derun run` flags. Everything after the first `--` is the command, untouched:
 * `derun run -- grep --help` runs grep with `--help`.
 */
import { DerunError } from "../core/errors.ts";
import { DEFAULT_RETENTION_SECONDS } from "../core/store.ts";
import { validateSessionId } from "../core/file-store/index.ts";
import { parseRetentionSeconds } from "./duration.ts";

export interface RunArgs {
  readonly command: readonly string[];
  readonly sessionId?: string;
  readonly retentionSeconds: number;
  readonly transport?: string;
}

const usage = (message: string) => new DerunError("usage", message);

/** The flags of `derun run`; each takes a value. */
const FLAGS = ["session-id", "retention", "transport"] as const;
type Flag = (typeof FLAGS)[number];

/**
 * `--flag value` and `--flag=value`, the last one winning; anything else starting with `-` is an
 * unknown option. By hand rather than node:util's parseArgs, whose module cost 1.2 ms of every start.
 */
function parseFlags(flags: readonly string[]): { values: Partial<Record<Flag, string>>; positionals: string[] } {
  const values: Partial<Record<Flag, string>> = {};
  const positionals: string[] = [];
  for (let i = 0; i < flags.length; i++) {
    const arg = flags[i]!;
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg);
      continue;
    }
    const equals = arg.indexOf("=");
    const name = arg.slice(2, equals === -1 ? undefined : equals);
    if (!arg.startsWith("--") || !(FLAGS as readonly string[]).includes(name)) {
      throw usage(`Unknown option '${equals === -1 ? arg : arg.slice(0, equals)}'`);
    }
    if (equals !== -1) {
      values[name as Flag] = arg.slice(equals + 1);
      continue;
    }
    const value = flags[i + 1];
    if (value === undefined || value.startsWith("-")) {
      throw usage(`option '--${name}' needs a value (--${name}=<value> for one that starts with '-')`);
    }
    values[name as Flag] = value;
    i += 1;
  }
  return { values, positionals };
}

/**
 * @param flags the arguments between `run` and `--`
 * @param command the arguments after `--`, or undefined when there was no `--`
 */
export function parseRunArgs(
  flags: readonly string[],
  command: readonly string[] | undefined,
  env: Record<string, string | undefined>,
): RunArgs {
  const { values, positionals } = parseFlags(flags);
  if (command === undefined) {
    throw usage(positionals.length > 0 ? `missing "--" before the command: derun run [flags] -- ${positionals.join(" ")}` : "missing \"--\" and the command to run");
  }
  if (positionals.length > 0) throw usage(`unexpected argument ${JSON.stringify(positionals[0])} before "--"`);
  if (command.length === 0) throw usage('missing the command after "--"');

  const sessionId = values["session-id"];
  if (sessionId !== undefined) {
    try {
      validateSessionId(sessionId);
    } catch (error) {
      throw usage((error as Error).message);
    }
  }
  const transport = values.transport ?? (env.DERUN_TRANSPORT || undefined);
  return {
    command,
    retentionSeconds: values.retention === undefined ? DEFAULT_RETENTION_SECONDS : parseRetentionSeconds(values.retention),
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(transport === undefined ? {} : { transport }),
  };
}
