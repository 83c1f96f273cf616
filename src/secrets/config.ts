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

/** How long a live read holds back a possible piece of a secret, unless DERUN_LIVE_HOLD_MS says (docs/secrets.md). */
export const DEFAULT_LIVE_HOLD_MS = 500;
/** The longest hold the person can ask for: a follower shows every line at most this late. */
export const MAX_LIVE_HOLD_MS = 10_000;

/** DERUN_LIVE_HOLD_MS: whole milliseconds from 0 (no hold) to MAX_LIVE_HOLD_MS; anything else stops the reader (exit 2). */
export function liveHoldFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): number {
  const value = env.DERUN_LIVE_HOLD_MS;
  if (value === undefined || value === "") return DEFAULT_LIVE_HOLD_MS;
  if (!/^[0-9]{1,5}$/.test(value) || Number(value) > MAX_LIVE_HOLD_MS) {
    const shown = JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
    throw new DerunError("usage", `DERUN_LIVE_HOLD_MS takes whole milliseconds from 0 to ${MAX_LIVE_HOLD_MS} (got ${shown})`);
  }
  return Number(value);
}

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
