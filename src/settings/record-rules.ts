/**
 * The person's rules of what is never recorded: config.json's `record` key (docs/privacy.md).
 *
 *   "record": { "ignore_commands": ["^pass ", "vault read"], "ignore_dirs": ["~/clients/acme"] }
 *
 * `ignore_commands` are regular expressions (JavaScript syntax) tested against a command line typed
 * in a recorded shell; `ignore_dirs` are directories (`~` for the home directory) under which no
 * command is recorded. A rule that cannot be used is an error naming it: a rule written to keep
 * something private must never silently stop working, so the caller then records nothing at all.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { DerunError } from "../core/errors.ts";
import { quote } from "../core/quote.ts";
import { configFilePath, readConfig } from "./config-file.ts";

type Env = Readonly<Record<string, string | undefined>>;

export interface RecordRules {
  readonly ignoreCommands: readonly RegExp[];
  /** Absolute directories (and, when a link leads elsewhere, where it leads). */
  readonly ignoreDirs: readonly string[];
}

/** The rules of the settings file; undefined when it sets none. Throws DerunError `usage` (one line) for a bad file or rule. */
export function readRecordRules(env: Env = process.env): RecordRules | undefined {
  const record = readConfig(env).record;
  if (record === undefined) return undefined;
  const file = configFilePath(env);
  const bad = (what: string) => new DerunError("usage", `settings file ${quote(file)}: ${what}; nothing is recorded until it is fixed`);
  if (typeof record !== "object" || record === null || Array.isArray(record)) throw bad('"record" must be an object');
  for (const key of Object.keys(record))
    if (key !== "ignore_commands" && key !== "ignore_dirs")
      throw bad(`"record" has no setting ${quote(key)} (ignore_commands, ignore_dirs)`);
  const { ignore_commands: commands = [], ignore_dirs: dirs = [] } = record as Record<string, unknown>;
  const strings = (value: unknown, name: string): string[] => {
    if (!Array.isArray(value) || !value.every((v) => typeof v === "string" && v !== ""))
      throw bad(`"record.${name}" must be a list of non-empty strings`);
    return value as string[];
  };
  const ignoreCommands = strings(commands, "ignore_commands").map((source, i) => {
    try {
      return new RegExp(source);
    } catch (error) {
      throw bad(`record.ignore_commands[${i}] ${quote(source)} is not a regular expression (${(error as Error).message.slice(0, 100)})`);
    }
  });
  const home = env.HOME || os.homedir();
  const ignoreDirs = strings(dirs, "ignore_dirs").flatMap((given, i) => {
    const dir = given === "~" ? home : given.startsWith("~/") ? path.join(home, given.slice(2)) : given;
    if (!path.isAbsolute(dir)) throw bad(`record.ignore_dirs[${i}] ${quote(given)} is not an absolute directory (or ~/...)`);
    const resolved = path.resolve(dir);
    let real = resolved;
    try {
      real = fs.realpathSync(resolved);
    } catch {
      // not there (yet): matched as written
    }
    return real === resolved ? [resolved] : [resolved, real];
  });
  return { ignoreCommands, ignoreDirs };
}

/** Whether `dir` lies under one of the rules' directories. */
export const isIgnoredDir = (rules: RecordRules, dir: string | null | undefined): boolean =>
  typeof dir === "string" && rules.ignoreDirs.some((d) => dir === d || dir.startsWith(d.endsWith("/") ? d : `${d}/`));

/** Whether a typed command line is ignored (by a pattern, or by the directory it runs in). */
export const isIgnoredCommand = (rules: RecordRules, line: string | null, cwd: string | null): boolean =>
  isIgnoredDir(rules, cwd) || (line !== null && rules.ignoreCommands.some((r) => r.test(line)));
