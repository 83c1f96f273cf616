/**
 * derun's command line: a lazy map of commands and the dispatcher in front of them.
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
import { commandMeta } from "./commands/meta.ts";

/** What a command asks the edge to do once it has cleaned up. */
export type CommandOutcome = { readonly exitCode: number } | { readonly signal: NodeJS.Signals };

/** Data the dispatcher hands to a command besides its flags. */
export interface CommandData {
  /** The arguments after `--`, or undefined when there was none. */
  readonly command?: readonly string[];
}

/** One of derun's commands, as its module exports it. */
export interface DerunCommandModule {
  /** What `derun <command> --help` shows. */
  readonly usage: CommandDef<any>;
  /** Runs the command; rejects with a DerunError `usage` for bad flags. */
  run(flags: readonly string[], data: CommandData): Promise<CommandOutcome>;
}

const commands = {
  run: () => import("./commands/run.ts"),
  mcp: () => import("./commands/mcp.ts"),
} satisfies Record<string, () => Promise<DerunCommandModule>>;

/** For usage only: the commands' names and descriptions, without loading their code. */
const main = {
  meta: {
    name: "derun",
    version: pkg.version,
    description: "Run commands exactly as without it, and let AI agents read their output over MCP.",
  },
  subCommands: { run: { meta: commandMeta.run }, mcp: { meta: commandMeta.mcp } },
} satisfies CommandDef;

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
    const command: DerunCommandModule = await commands[name as keyof typeof commands]();
    if (flags.some(isHelp)) return finish({ exitCode: print(await renderUsage(command.usage, main)) });
    return finish(await command.run(flags, data));
  } catch (error) {
    if (isDerunError(error, "usage") || isDerunError(error, "invalid_session_id") || isDerunError(error, "session_exists")) {
      return usageError(error.message, `Run "derun ${name} --help" for usage.`);
    }
    process.stderr.write(`derun: ${describeError(error)}\n`);
    return finish({ exitCode: 1 });
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
  return finish({ exitCode: 2 });
}

function finish(outcome: CommandOutcome): never {
  if ("signal" in outcome) dieBySignal(outcome.signal);
  process.exit(outcome.exitCode);
}
