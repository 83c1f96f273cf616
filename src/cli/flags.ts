/**
 * Strict parsing of a command's flags from the same definitions its `--help` renders (citty's
 * ArgsDef shape), so help and parsing cannot disagree. getopt's conventions: `--name value`,
 * `--name=value`, `-n value`, `-n5`, grouped short switches (`-fn 20`), only operands after `--`;
 * the last occurrence wins; an unknown option is a usage error with the nearest known name. A flag
 * marked `multiple` collects every occurrence; one marked `dashValue` takes the next argument as its
 * value even when it starts with `-` (grep's `-e -v`), as getopt does for every option with a value.
 * By hand rather than node:util's parseArgs, whose module would load at every `derun run` start.
 */
import { didYouMean, shown, usageError } from "./usage.ts";

export interface FlagDef {
  readonly type: "boolean" | "string" | "enum" | "positional";
  /** A sentence for `--help`; name the environment variable that sets the same, if any. */
  readonly description: string;
  /** One-letter short forms. */
  readonly alias?: string | readonly string[];
  /** The values an `enum` flag accepts. */
  readonly options?: readonly string[];
  readonly valueHint?: string;
  readonly required?: boolean;
  /** Every occurrence is kept, in order (the value is a list). */
  readonly multiple?: true;
  /** The next argument is the value even when it starts with `-`. */
  readonly dashValue?: true;
  /** What shell completion offers for the value: recorded sessions, a directory, a file, or these words. */
  readonly complete?: "session" | "dir" | "file" | readonly string[];
}

export type FlagDefs = Readonly<Record<string, FlagDef>>;

type ValueOf<D extends FlagDef> = D["type"] extends "boolean"
  ? boolean
  : D extends { readonly multiple: true }
    ? string[]
    : D extends { readonly options: readonly (infer U)[] }
      ? U
      : string;

/** The flags given, by name (positionals apart). */
export type FlagValues<A extends FlagDefs> = {
  -readonly [K in keyof A as A[K]["type"] extends "positional" ? never : K]?: ValueOf<A[K]>;
};

export interface ParsedFlags<A extends FlagDefs> {
  readonly values: FlagValues<A>;
  readonly positionals: readonly string[];
}

/** A value may not look like an option (`--limit --json`), except `-` alone (standard input or output). */
const looksLikeOption = (arg: string) => arg.startsWith("-") && arg !== "-";

export function parseFlags<A extends FlagDefs>(flags: readonly string[], defs: A): ParsedFlags<A> {
  const named = Object.entries(defs).filter(([, def]) => def.type !== "positional");
  const long = new Map<string, FlagDef>(named);
  const short = new Map<string, [string, FlagDef]>();
  for (const [name, def] of named) for (const alias of [def.alias ?? []].flat()) short.set(alias, [name, def]);
  const values: Record<string, string | boolean | string[]> = {};
  const positionals: string[] = [];

  const take = (name: string, def: FlagDef, spelled: string, inline: string | undefined, next: () => string | undefined): void => {
    if (def.type === "boolean") {
      if (inline !== undefined) throw usageError(`option ${shown(spelled)} takes no value`);
      values[name] = true;
      return;
    }
    const value = inline ?? next();
    if (value === undefined || (inline === undefined && !def.dashValue && looksLikeOption(value))) {
      throw usageError(`option ${shown(spelled)} needs a value (--${name}=<value> for one that starts with "-")`);
    }
    if (def.options && !def.options.includes(value)) {
      throw usageError(
        `option ${shown(spelled)} takes one of ${def.options.join(", ")} (got ${shown(value)})${didYouMean(value, def.options)}`,
      );
    }
    values[name] = def.multiple ? [...((values[name] as string[] | undefined) ?? []), value] : value;
  };

  for (let i = 0; i < flags.length; i++) {
    const arg = flags[i]!;
    const next = () => (i + 1 < flags.length ? flags[++i] : undefined);
    if (arg === "--") {
      positionals.push(...flags.slice(i + 1)); // the rest are operands, never options
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg);
    } else if (arg.startsWith("--")) {
      const equals = arg.indexOf("=");
      const name = arg.slice(2, equals === -1 ? undefined : equals);
      const def = long.get(name);
      if (!def)
        throw usageError(
          `unknown option ${shown(`--${name}`)}${didYouMean(
            `--${name}`,
            [...long.keys()].map((n) => `--${n}`),
          )}`,
        );
      take(name, def, `--${name}`, equals === -1 ? undefined : arg.slice(equals + 1), next);
    } else {
      // A group of short options: switches, then at most one that takes the rest (or the next arg) as its value.
      for (let j = 1; j < arg.length; j++) {
        const found = short.get(arg[j]!);
        if (!found)
          throw usageError(
            `unknown option ${shown(`-${arg[j]}`)}${
              j === 1
                ? didYouMean(
                    arg,
                    [...long.keys()].map((n) => `--${n}`),
                  )
                : ""
            }`,
          );
        const [name, def] = found;
        if (def.type === "boolean") {
          values[name] = true;
          continue;
        }
        take(name, def, `-${arg[j]}`, j + 1 < arg.length ? arg.slice(j + 1) : undefined, next);
        break;
      }
    }
  }
  return { values: values as FlagValues<A>, positionals };
}

/** A flag's value as a whole number of at least 1. */
export function positiveInteger(flag: string, value: string): number {
  const n = /^[0-9]{1,15}$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1)) throw usageError(`option ${shown(flag)} takes a positive whole number (got ${shown(value)})`);
  return n;
}
