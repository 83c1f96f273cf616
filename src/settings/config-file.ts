/**
 * derun's settings file: `$XDG_CONFIG_HOME/derun/config.json`, else `~/.config/derun/config.json`
 * (docs/privacy.md). One JSON object whose keys belong to the parts that read them (`record`: the
 * ignore rules, `storage`: disk bounds); each part checks its own key. Read safely (./safe-read.ts).
 */
import * as os from "node:os";
import * as path from "node:path";
import { DerunError } from "../core/errors.ts";
import { quote } from "../core/quote.ts";
import { readSettingsText } from "./safe-read.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** Where the settings file is looked for. */
export function configFilePath(env: Env = process.env): string {
  const base = env.XDG_CONFIG_HOME ? env.XDG_CONFIG_HOME : path.join(env.HOME || os.homedir(), ".config");
  return path.join(base, "derun", "config.json");
}

/**
 * The settings: `{}` when there is no file; a DerunError `usage` (one line naming the file) when it
 * is unsafe (./safe-read.ts), not JSON, or not a JSON object.
 */
export function readConfig(env: Env = process.env): Record<string, unknown> {
  const file = configFilePath(env);
  const text = readSettingsText(file);
  if (text === undefined) return {};
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new DerunError("usage", `settings file ${quote(file)} is not JSON: ${(error as Error).message.split("\n")[0]?.slice(0, 200)}`);
  }
  if (typeof json !== "object" || json === null || Array.isArray(json))
    throw new DerunError("usage", `settings file ${quote(file)} is not a JSON object`);
  return json as Record<string, unknown>;
}
