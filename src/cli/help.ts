/**
 * `derun --help`, `derun help <command>` and `derun <command> --help`: citty renders the commands
 * and flags; this adds each command's own usage line and its EXAMPLES, and drops citty's column
 * padding at the ends of lines. Colour only on a terminal without NO_COLOR. Loaded only for help,
 * so that citty, node:tty and node:util are not loaded at every `derun run` start.
 */
import type { ArgsDef, CommandDef } from "citty";
import pkg from "../../package.json" with { type: "json" };
import type { CommandModule } from "./command.ts";
import { commands, HELP_DESCRIPTION, type CommandName } from "./commands/index.ts";
import { colourOn, paint } from "./paint.ts";

const DESCRIPTION = "Run commands exactly as without it, and let AI agents read their output over MCP.";

const main = {
  meta: { name: "derun", version: pkg.version, description: DESCRIPTION },
  subCommands: Object.fromEntries(
    [...Object.entries(commands), ["help", { description: HELP_DESCRIPTION }] as const].map(([name, { description }]) => [
      name,
      { meta: { name, description } },
    ]),
  ),
} satisfies CommandDef;

const MAIN_EXAMPLES = [
  "derun run -- make test          # run and record, exactly as without derun",
  "derun ls                        # the recorded sessions, newest first",
  "derun tail -f last              # follow the newest session",
  "derun help tail                 # one command's flags and examples",
];

/** The list of commands. */
export const mainHelp = (): Promise<string> => render(main, undefined, "<command> [options]", MAIN_EXAMPLES);

/** `derun help help`. */
export const helpHelp = (): Promise<string> =>
  render({ meta: { name: "help", description: HELP_DESCRIPTION } }, main, "[<command>]", [
    "derun help run                  # the flags of derun run",
    "derun run --help                # the same",
  ]);

/** One command's help; its sub-commands listed under COMMANDS. */
export async function commandHelp(name: CommandName, command: CommandModule): Promise<string> {
  const subs = Object.entries(command.subCommands ?? {});
  const def: CommandDef = {
    meta: { name, description: commands[name].description },
    ...(command.args ? { args: command.args as ArgsDef } : {}),
    ...(subs.length
      ? { subCommands: Object.fromEntries(subs.map(([sub, { description }]) => [sub, { meta: { name: sub, description } }])) }
      : {}),
  };
  return render(def, main, command.usage, command.examples);
}

/** A sub-command's help (`derun mcp config --help`). */
export async function subCommandHelp(name: CommandName, sub: string, description: string, command: CommandModule): Promise<string> {
  const parent = { meta: { name: `derun ${name}` } } satisfies CommandDef;
  const def: CommandDef = { meta: { name: sub, description }, ...(command.args ? { args: command.args as ArgsDef } : {}) };
  return render(def, parent, command.usage, command.examples, `derun ${name} ${sub}`);
}

async function render(
  def: CommandDef<any>,
  parent: CommandDef<any> | undefined,
  usage: string | undefined,
  examples: readonly string[] = [],
  shownName?: string,
): Promise<string> {
  const [citty, { stripVTControlCharacters }] = await Promise.all([import("citty"), import("node:util")]);
  const colour = colourOn(1);
  let text = await citty.renderUsage(def, parent);
  if (!colour) text = stripVTControlCharacters(text);
  const heading = (title: string) => paint(colour, "underline", paint(colour, "bold", title));
  const name = shownName ?? (parent ? `derun ${(def.meta as { name: string }).name}` : "derun");
  const lines = text.split("\n").map((line) => {
    // citty pads every column to the widest: no spaces at the end of a line (colour codes may follow them).
    const trimmed = line.replace(/[ \t]+((?:\x1b\[[0-9;]*m)*)$/, "$1");
    return usage !== undefined && stripVTControlCharacters(trimmed).startsWith("USAGE ")
      ? `${heading("USAGE")} ${paint(colour, "cyan", `${name} ${usage}`)}`
      : trimmed;
  });
  while (lines.at(-1) === "") lines.pop();
  if (examples.length > 0) lines.push("", heading("EXAMPLES"), "", ...examples.map((example) => `  ${example}`));
  return lines.join("\n");
}
