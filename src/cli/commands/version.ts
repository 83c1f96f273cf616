/** `derun version` (also `--version`, `-V`): the package version, alone on a line. */
import pkg from "../../../package.json" with { type: "json" };
import { exitWith, type ExitRequest } from "../command.ts";
import { parseFlags } from "../flags.ts";
import { writeOut } from "../ui.ts";
import { shown, usageError } from "../usage.ts";

export const args = {} as const;
export const examples = ["derun --version"];

export async function run(flags: readonly string[]): Promise<ExitRequest> {
  const { positionals } = parseFlags(flags, args);
  if (positionals.length > 0) throw usageError(`derun version takes no arguments (got ${shown(positionals[0]!)})`);
  writeOut(`${pkg.version}\n`);
  return exitWith(0);
}
