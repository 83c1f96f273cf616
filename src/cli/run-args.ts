/**
 * Strict parsing of `derun run` flags. Everything after the first `--` is the command, untouched:
 * `derun run -- grep --help` runs grep with `--help`.
 */
import { parseArgs } from "node:util";
import { DerunError } from "../core/errors.ts";
import { DEFAULT_RETENTION_SECONDS } from "../core/store.ts";
import { validateSessionId } from "../core/store/index.ts";
import { parseRetentionSeconds } from "./duration.ts";

export interface RunArgs {
  readonly command: readonly string[];
  readonly sessionId?: string;
  readonly retentionSeconds: number;
  readonly transport?: string;
}

const usage = (message: string) => new DerunError("usage", message);

/**
 * @param flags the arguments between `run` and `--`
 * @param command the arguments after `--`, or undefined when there was no `--`
 */
export function parseRunArgs(
  flags: readonly string[],
  command: readonly string[] | undefined,
  env: Record<string, string | undefined>,
): RunArgs {
  let values: { "session-id"?: string; retention?: string; transport?: string };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...flags],
      options: { "session-id": { type: "string" }, retention: { type: "string" }, transport: { type: "string" } },
      strict: true,
      allowPositionals: true,
    }));
  } catch (error) {
    throw usage((error as Error).message.split("\n")[0]!.replace(/\. To specify a positional.*$/, ""));
  }
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
