/**
 * derun's command line: a lazy map of citty commands and the dispatcher in front of them.
 *
 * The dispatcher splits argv at the first `--` before anything parses it: what follows belongs to
 * the user's command, untouched (citty's own `runMain` would take `derun run -- grep --help` as a
 * request for derun's help). It also owns the exit: 2 for usage errors, 1 for derun failures, the
 * command's own status (or signal) otherwise.
 */
import { defineCommand, renderUsage as renderColoredUsage, runCommand, type CommandDef } from "citty";
import { isatty } from "node:tty";
import { stripVTControlCharacters } from "node:util";
import pkg from "../../package.json" with { type: "json" };
import { describeError, isDerunError } from "../core/errors.ts";
import { dieBySignal } from "../core/run/signals.ts";
import { commandMeta } from "./commands/meta.ts";

/** What a command asks the edge to do once it has cleaned up. */
export type CommandOutcome = { readonly exitCode: number } | { readonly signal: NodeJS.Signals };

/** Data the dispatcher hands to a command besides its flags. */
export interface CommandData {
  /** The arguments after `--`, or undefined when there was none. */
  readonly command?: readonly string[];
}

const commands = {
  run: () => import("./commands/run.ts").then((m) => m.default),
  mcp: () => import("./commands/mcp.ts").then((m) => m.default),
} satisfies Record<string, () => Promise<CommandDef<any>>>;

/** For usage only: the commands' names and descriptions, without loading their code. */
export const main = defineCommand({
  meta: {
    name: "derun",
    version: pkg.version,
    description: "Run commands exactly as without it, and let AI agents read their output over MCP.",
  },
  subCommands: { run: defineCommand({ meta: commandMeta.run }), mcp: defineCommand({ meta: commandMeta.mcp }) },
});

const isHelp = (arg: string) => arg === "--help" || arg === "-h";

export async function runCli(argv: readonly string[]): Promise<never> {
  const split = argv.indexOf("--");
  const own = split === -1 ? argv : argv.slice(0, split);
  const data: CommandData = split === -1 ? {} : { command: argv.slice(split + 1) };
  const [name, ...flags] = own;
  try {
    if (name === "--version" || name === "-v") return finish({ exitCode: print(pkg.version) });
    if (name === undefined || isHelp(name) || name === "help") {
      const help = await renderUsage(main);
      if (name === undefined) return usageError("missing command", help);
      return finish({ exitCode: print(help) });
    }
    if (!Object.hasOwn(commands, name)) return usageError(`unknown command ${JSON.stringify(name)}`, await renderUsage(main));
    // Widened: each command's own arg types matter inside it, not to the dispatcher.
    const command: CommandDef<any> = await commands[name as keyof typeof commands]();
    if (flags.some(isHelp)) return finish({ exitCode: print(await renderUsage(command, main)) });
    const { result } = await runCommand(command, { rawArgs: flags, data });
    return finish((result as CommandOutcome | undefined) ?? { exitCode: 0 });
  } catch (error) {
    if (isDerunError(error, "usage") || isDerunError(error, "invalid_session_id") || isDerunError(error, "session_exists")) {
      return usageError(error.message, `Run "derun ${name} --help" for usage.`);
    }
    process.stderr.write(`derun: ${describeError(error)}\n`);
    return finish({ exitCode: 1 });
  }
}

/** citty colours its usage; a pipe or a file gets plain text. */
async function renderUsage(...args: Parameters<typeof renderColoredUsage>): Promise<string> {
  const usage = await renderColoredUsage(...args);
  return isatty(1) && !process.env.NO_COLOR ? usage : stripVTControlCharacters(usage);
}

function print(text: string): number {
  process.stdout.write(`${text}\n`);
  return 0;
}

function usageError(message: string, hint: string): never {
  process.stderr.write(`derun: ${message}\n${hint}\n`);
  return finish({ exitCode: 2 });
}

function finish(outcome: CommandOutcome): never {
  if ("signal" in outcome) dieBySignal(outcome.signal);
  process.exit(outcome.exitCode);
}
