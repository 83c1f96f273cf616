/**
 * What shell completion knows, read from the commands themselves (the lazy map's names and
 * descriptions, each module's flags), so a new flag completes without touching the scripts.
 */
import { HELP_DESCRIPTION, type CommandEntry, type CommandModule } from "../command.ts";
import type { FlagDef, FlagDefs } from "../flags.ts";

export type Completion = "session" | "dir" | "file" | "command" | readonly string[];

export interface CompletionFlag {
  /** Without the leading `--`. */
  readonly long: string;
  readonly short: readonly string[];
  readonly description: string;
  /** What the value completes to; undefined for a switch, "any" for free text. */
  readonly value?: Completion | "any";
}

export interface CompletionCommand {
  readonly name: string;
  readonly description: string;
  readonly flags: readonly CompletionFlag[];
  /** What the positional arguments complete to, if anything. */
  readonly positional?: Completion;
  /** The arguments after `--` are a command to run. */
  readonly takesCommand: boolean;
  /** A subcommand (`derun mcp config`): its name, what its first argument completes to, its flags. */
  readonly sub?: {
    readonly name: string;
    readonly description: string;
    readonly positional: readonly string[];
    readonly flags: readonly CompletionFlag[];
  };
}

const HELP_FLAG: CompletionFlag = { long: "help", short: ["h"], description: "Show this command's help." };

const valueOf = (def: FlagDef): CompletionFlag["value"] => (def.type === "boolean" ? undefined : (def.complete ?? def.options ?? "any"));

const flagsOf = (defs: FlagDefs): CompletionFlag[] => [
  ...Object.entries(defs)
    .filter(([, def]) => def.type !== "positional")
    .map(([long, def]) => ({ long, short: [def.alias ?? []].flat(), description: def.description, value: valueOf(def) })),
  HELP_FLAG,
];

/** A command's sub-command (`derun mcp config <client>`): its name and description, what its argument completes to, its flags. */
async function subOf(module: CommandModule): Promise<CompletionCommand["sub"]> {
  const [name, entry] = Object.entries(module.subCommands ?? {})[0] ?? [];
  if (name === undefined || entry === undefined) return undefined;
  const sub = await entry.load();
  const positional = Object.values(sub.args ?? {}).find((def) => def.type === "positional")?.complete;
  return { name, description: entry.description, positional: Array.isArray(positional) ? positional : [], flags: flagsOf(sub.args ?? {}) };
}

/** `commands`: the dispatcher's table, handed to `derun completion` (it may not import the table). */
export async function completionSpec(commands: Readonly<Record<string, CommandEntry>>): Promise<CompletionCommand[]> {
  const entries = Object.entries(commands);
  const names = entries.map(([name]) => name);
  const modules: CommandModule[] = await Promise.all(entries.map(([, entry]) => entry.load()));
  const spec: CompletionCommand[] = names.map((name, i) => {
    const defs: [string, FlagDef][] = Object.entries(modules[i]!.args ?? {});
    // The first positional that completes to something (grep's sessions come after its pattern).
    const positional = defs.find(([, def]) => def.type === "positional" && def.complete !== undefined)?.[1];
    return {
      name,
      description: entries[i]![1].description,
      flags: flagsOf(modules[i]!.args ?? {}),
      ...(positional?.complete ? { positional: positional.complete } : {}),
      takesCommand: modules[i]!.takesCommand ?? false,
    };
  });
  const subs = await Promise.all(modules.map(subOf));
  // A sub-command is offered as the command's first word (with its description where the shell shows one).
  spec.forEach((command, i) => subs[i] && Object.assign(command, { sub: subs[i], positional: command.positional ?? [subs[i]!.name] }));
  spec.push({ name: "help", description: HELP_DESCRIPTION, flags: [], positional: [...names, "help"], takesCommand: false });
  return spec;
}

/** The first sentence of a description, for the one-line hints shells show beside a candidate. */
export const brief = (description: string): string =>
  description
    .replace(/\s+/g, " ")
    .split(/(?<=\.) /)[0]!
    .replace(/\.$/, "");
