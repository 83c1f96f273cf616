/**
 * The user's own redaction settings: `$XDG_CONFIG_HOME/derun/redact.json` (else
 * `~/.config/derun/redact.json`), read once when a reader starts. Extra rules (in the built-in
 * rules' form), an allow-list of patterns whose matches are never masked, and built-in rules to
 * turn off. A file that cannot be used stops the reader with a one-line error rather than running
 * with less masking than the person asked for (docs/secrets.md); so does one that is not safely
 * the person's own (../../settings/safe-read.ts).
 */
import * as os from "node:os";
import * as path from "node:path";
import { DerunError } from "../core/errors.ts";
import { readSettingsText } from "../settings/safe-read.ts";
import { RULES, type RedactRule } from "./rules.ts";

export interface RedactSettings {
  readonly rules: readonly RedactRule[];
  readonly allow: readonly RegExp[];
}

export const BUILT_IN: RedactSettings = { rules: RULES, allow: [] };

/** Where the file is looked for. */
export function configPath(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const base = env.XDG_CONFIG_HOME ? env.XDG_CONFIG_HOME : path.join(env.HOME || os.homedir(), ".config");
  return path.join(base, "derun", "redact.json");
}

const compile = (file: string, what: string, source: string, flags = ""): RegExp => {
  try {
    return new RegExp(source, flags);
  } catch (error) {
    throw new DerunError("usage", `${file}: ${what} is not a regular expression: ${(error as Error).message}`);
  }
};

/** The built-in rules with the file's changes; the built-ins alone when there is no file (then arktype is not even loaded). */
export async function loadSettings(file = configPath()): Promise<RedactSettings> {
  // As ssh reads its files: a FIFO, a device, a huge file or one planted by someone else is refused.
  const text = readSettingsText(file);
  if (text === undefined) return BUILT_IN;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new DerunError("usage", `${file}: not JSON: ${(error as Error).message}`);
  }
  const parsed = (await import("./config-schema.ts")).checkConfig(json);
  if ("problem" in parsed) throw new DerunError("usage", `${file}: ${parsed.problem}`);
  const known = new Set(RULES.map((r) => r.id));
  for (const id of parsed.disable ?? [])
    if (!known.has(id)) throw new DerunError("usage", `${file}: disable names no built-in rule: ${JSON.stringify(id)}`);
  const extra: RedactRule[] = (parsed.rules ?? []).map((r) => {
    compile(file, `rule ${JSON.stringify(r.id)}`, r.pattern, r.flags);
    return {
      id: r.id,
      description: r.description ?? "a rule of the user's",
      keywords: (r.keywords ?? []).map((k) => k.toLowerCase()),
      pattern: r.pattern,
      ...(r.flags ? { flags: r.flags } : {}),
      ...(r.min_length === undefined ? {} : { minLength: r.min_length }),
      ...(r.entropy === undefined ? {} : { entropy: r.entropy }),
    };
  });
  const disabled = new Set(parsed.disable ?? []);
  return {
    rules: [...RULES.filter((r) => !disabled.has(r.id)), ...extra],
    allow: (parsed.allow ?? []).map((source, i) => compile(file, `allow[${i}]`, source)),
  };
}
