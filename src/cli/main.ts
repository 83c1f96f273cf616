/**
 * derun's command line: the dispatcher in front of the commands of ./commands/index.ts.
 *
 * The dispatcher splits argv at the first `--` before anything parses it: what follows belongs to
 * the user's command, untouched (citty's own `runMain` would take `derun run -- grep --help` as a
 * request for derun's help). Each command parses its own flags strictly. It also owns the exit: 2
 * for usage errors, 1 for derun failures, the command's own status (or signal) otherwise.
 *
 * citty renders the help and is loaded only for it: at every start it cost about 1 ms of the 13.
 */
import type { CommandDef } from "citty";
import pkg from "../../package.json" with { type: "json" };
import { describeError, isDerunError } from "../core/errors.ts";
import { dieBySignal } from "../core/run/signals.ts";
import { exitWith, type CommandData, type CommandModule, type ExitRequest } from "./command.ts";
import { commands, isCommandName } from "./commands/index.ts";

/** For usage only: the commands' names and descriptions, without loading their code. */
const main = {
  meta: {
    name: "derun",
    version: pkg.version,
    description: "Run commands exactly as without it, and let AI agents read their output over MCP.",
  },
  subCommands: Object.fromEntries(Object.entries(commands).map(([name, { description }]) => [name, { meta: { name, description } }])),
} satisfies CommandDef;

const isHelp = (arg: string) => arg === "--help" || arg === "-h";

export async function runCli(argv: readonly string[]): Promise<never> {
  const split = argv.indexOf("--");
  const own = split === -1 ? argv : argv.slice(0, split);
  const data: CommandData = split === -1 ? {} : { command: argv.slice(split + 1) };
  const [name, ...flags] = own;
  try {
    if (name === "--version" || name === "-v") return finish(exitWith(print(pkg.version)));
    if (name === undefined || isHelp(name) || name === "help") {
      const help = await renderUsage(main);
      if (name === undefined) return usageError("missing command", help);
      return finish(exitWith(print(help)));
    }
    if (!isCommandName(name)) return usageError(`unknown command ${JSON.stringify(name)}`, await renderUsage(main));
    const command: CommandModule = await commands[name].load();
    if (flags.some(isHelp)) {
      const usage: CommandDef = { meta: { name, description: commands[name].description }, ...(command.args ? { args: command.args } : {}) };
      return finish(exitWith(print(await renderUsage(usage, main))));
    }
    return finish(await command.run(flags, data));
  } catch (error) {
    if (isDerunError(error, "usage") || isDerunError(error, "invalid_session_id") || isDerunError(error, "session_exists")) {
      return usageError(error.message, `Run "derun ${name} --help" for usage.`);
    }
    process.stderr.write(`derun: ${describeError(error)}\n`);
    return finish(exitWith(1));
  }
}

/**
 * citty colours its usage; a pipe or a file gets plain text. citty, node:tty and node:util load
 * here, on the way to help, not at every start (node:tty alone cost 3 to 4 ms).
 */
async function renderUsage(command: CommandDef<any>, parent?: CommandDef<any>): Promise<string> {
  const [citty, { isatty }, { stripVTControlCharacters }] = await Promise.all([import("citty"), import("node:tty"), import("node:util")]);
  const usage = await citty.renderUsage(command, parent);
  return isatty(1) && !process.env.NO_COLOR ? usage : stripVTControlCharacters(usage);
}

function print(text: string): number {
  process.stdout.write(`${text}\n`);
  return 0;
}

function usageError(message: string, hint: string): never {
  process.stderr.write(`derun: ${message}\n${hint}\n`);
  return finish(exitWith(2));
}

function finish(request: ExitRequest): never {
  if (request.kind === "signaled") dieBySignal(request.signal);
  process.exit(request.code);
}
