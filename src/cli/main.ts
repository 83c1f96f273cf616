/**
 * derun's command line: the dispatcher in front of the commands of ./commands/index.ts.
 *
 * The dispatcher splits argv at the first `--` before anything parses it: what follows belongs to
 * the user's command, untouched (citty's own `runMain` would take `derun run -- grep --help` as a
 * request for derun's help). Each command parses its own flags strictly. It also owns the exit: 2
 * for usage errors, 1 for derun failures, the command's own status (or signal) otherwise, and
 * death by SIGPIPE when the reader of stdout went away (as `cat` dies in `cat | head`). Help
 * (citty) is loaded only for help, not at every start.
 */
import { describeError, isDerunError } from "../core/errors.ts";
import { messageLine } from "../core/quote.ts";
import { dieBySignal } from "../recorder/signals.ts";
import { writeAllSync } from "../safe-fs/index.ts";
import { exitWith, type CommandData, type CommandModule, type ExitRequest } from "./command.ts";
import { commands, isCommandName, type CommandName } from "./commands/index.ts";
import { didYouMean, shown } from "./usage.ts";

const isHelp = (arg: string) => arg === "--help" || arg === "-h";
const isVersion = (arg: string) => arg === "--version" || arg === "-V" || arg === "-v";
/**
 * Commands that read what follows `--` themselves (the command to run, grep's pattern). For every
 * other one it is operands, as getopt has it: `derun cat -- -odd-id`.
 */
const READS_AFTER_DASHES: ReadonlySet<string> = new Set(["run", "shell", "shell-init", "mcp", "grep"]);
/** Errors a person fixes by changing the command line: exit 2. */
const USAGE_CODES = ["usage", "invalid_argument", "invalid_session_id", "session_exists"] as const;

export async function runCli(argv: readonly string[]): Promise<never> {
  const split = argv.indexOf("--");
  const own = split === -1 ? argv : argv.slice(0, split);
  const data: CommandData = split === -1 ? { commands } : { command: argv.slice(split + 1), commands };
  const [first, ...flags] = own;
  const name = first !== undefined && isVersion(first) ? "version" : first;
  try {
    if (name === undefined) return usageError("missing command", await (await import("./help.ts")).mainHelp());
    if (isHelp(name) || name === "help")
      return finish(exitWith(print(await helpFor(name === "help" ? flags[0] : undefined, name === "help" ? flags[1] : undefined))));
    if (!isCommandName(name)) return unknownCommand(name);
    const command = await commands[name].load();
    if (flags.some(isHelp)) return finish(exitWith(print(await helpOf(name, command, flags[0]))));
    if (data.command === undefined || READS_AFTER_DASHES.has(name)) return finish(await command.run(flags, data));
    return finish(await command.run([...flags, "--", ...data.command], { commands }));
  } catch (error) {
    if ((error as NodeJS.ErrnoException)?.code === "EPIPE") return finish({ kind: "signaled", signal: "SIGPIPE" });
    if (USAGE_CODES.some((code) => isDerunError(error, code))) {
      const help = name !== undefined && isCommandName(name) ? `derun ${name} --help` : "derun --help";
      return usageError(describeError(error), `Run "${help}" for usage.`);
    }
    writeAllSync(2, Buffer.from(`derun: ${messageLine(describeError(error))}\n`));
    return finish(exitWith(1));
  }
}

/** `derun help [<command> [<sub-command>]]`. */
async function helpFor(target: string | undefined, sub: string | undefined): Promise<string> {
  const help = await import("./help.ts");
  if (target === undefined) return help.mainHelp();
  if (target === "help" || isHelp(target)) return help.helpHelp();
  if (!isCommandName(target)) return unknownCommand(target);
  return helpOf(target, await commands[target].load(), sub);
}

/** `derun <command> --help`, or its sub-command's (`derun mcp config --help`) when `first` names one. */
async function helpOf(name: CommandName, command: CommandModule, first: string | undefined): Promise<string> {
  const help = await import("./help.ts");
  const sub = first === undefined ? undefined : command.subCommands?.[first];
  if (sub === undefined || first === undefined) return help.commandHelp(name, command);
  return help.subCommandHelp(name, first, sub.description, await sub.load());
}

function unknownCommand(name: string): never {
  return usageError(`unknown command ${shown(name)}${didYouMean(name, Object.keys(commands))}`, 'Run "derun --help" for the commands.');
}

/** Help and version: through write(2), not process.stdout, whose set-up costs more than they do. */
function print(text: string): number {
  writeAllSync(1, Buffer.from(`${text}\n`));
  return 0;
}

function usageError(message: string, hint: string): never {
  writeAllSync(2, Buffer.from(`derun: ${messageLine(message)}\n${hint}\n`));
  return finish(exitWith(2));
}

function finish(request: ExitRequest): never {
  if (request.kind === "signaled") dieBySignal(request.signal);
  process.exit(request.code);
}
