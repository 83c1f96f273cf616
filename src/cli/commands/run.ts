/** `derun run [flags] -- <command> [args...]`. */
import type { CommandData, ExitRequest } from "../command.ts";
import { parseRunArgs, RUN_FLAGS } from "../run-args.ts";
import { startRun } from "../start-run.ts";

/** Parsed by parseRunArgs (strict), rendered by `--help`. */
export const args = RUN_FLAGS;
export const usage = "[OPTIONS] -- <command> [args...]";
export const takesCommand = true;
export const examples = [
  "derun run -- make test",
  "derun run --session-id build --retention 72h -- make -j8",
  "derun run --state-root /tmp/derun -- ls --color=always",
];

export async function run(flags: readonly string[], data: CommandData): Promise<ExitRequest> {
  return startRun(parseRunArgs(flags, data.command, process.env));
}
