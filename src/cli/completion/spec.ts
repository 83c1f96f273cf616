/**
 * What shell completion knows, read from the commands themselves (the lazy map's names and
 * descriptions, each module's flags), so a new flag completes without touching the scripts.
 */
import type { CommandModule } from "../command.ts";
import { commands, type CommandName } from "../commands/index.ts";
import type { FlagDef } from "../flags.ts";

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
}

const HELP_FLAG: CompletionFlag = { long: "help", short: ["h"], description: "Show this command's help." };

const valueOf = (def: FlagDef): CompletionFlag["value"] => (def.type === "boolean" ? undefined : (def.complete ?? def.options ?? "any"));

export async function completionSpec(): Promise<CompletionCommand[]> {
  const names = Object.keys(commands) as CommandName[];
  const modules: CommandModule[] = await Promise.all(names.map((name) => commands[name].load()));
  const spec: CompletionCommand[] = names.map((name, i) => {
    const defs: [string, FlagDef][] = Object.entries(modules[i]!.args ?? {});
    // The first positional that completes to something (grep's sessions come after its pattern).
    const positional = defs.find(([, def]) => def.type === "positional" && def.complete !== undefined)?.[1];
    return {
      name,
      description: commands[name].description,
      flags: [...defs.filter(([, def]) => def.type !== "positional").map(([long, def]) => ({ long, short: [def.alias ?? []].flat(), description: def.description, value: valueOf(def) })), HELP_FLAG],
      ...(positional?.complete ? { positional: positional.complete } : {}),
      takesCommand: modules[i]!.takesCommand ?? false,
    };
  });
  spec.push({ name: "help", description: "Show the help of derun or of one command.", flags: [], positional: names, takesCommand: false });
  return spec;
}

/** The first sentence of a description, for the one-line hints shells show beside a candidate. */
export const brief = (description: string): string => description.replace(/\s+/g, " ").split(/(?<=\.) /)[0]!.replace(/\.$/, "");
