/**
 * The user's settings file: `$XDG_CONFIG_HOME/derun/config.json` (else `~/.config/derun/config.json`),
 * one JSON object whose keys each belong to one part of derun (`storage`: settings/storage.ts). Read
 * the way ssh reads its own files: a regular file (a link is not followed), this user's or root's,
 * writable by nobody else, bounded in size. A file that cannot be used is a one-line usage error
 * (exit 2): running with other settings than the person wrote would be worse.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { DerunError, isDerunError } from "../core/errors.ts";
import { openRegularIfExists, readBoundedSync } from "../core/safe-fs/index.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** Settings are a few lines: a file much larger is not one. */
const MAX_CONFIG_BYTES = 256 * 1024;

/** Where the file is looked for. */
export function configFilePath(env: Env = process.env): string {
  const base = env.XDG_CONFIG_HOME ? env.XDG_CONFIG_HOME : path.join(env.HOME || os.homedir(), ".config");
  return path.join(base, "derun", "config.json");
}

/** The file's object; `{}` when there is no file. */
export function readConfig(env: Env = process.env): Record<string, unknown> {
  const file = configFilePath(env);
  const bad = (why: string) => new DerunError("usage", `${file}: ${why}`);
  let fd: number | undefined;
  try {
    fd = openRegularIfExists(file, fs.constants.O_RDONLY, { code: "unsafe_path" });
  } catch (error) {
    if (isDerunError(error)) throw bad("not a regular file");
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw bad("is a symbolic link (not followed)");
    if (code === "ENOTDIR") return {};
    throw bad(`cannot be read (${code ?? "error"})`);
  }
  if (fd === undefined) return {};
  let text: string | undefined;
  try {
    const stat = fs.fstatSync(fd);
    const uid = process.geteuid?.();
    if (uid !== undefined && stat.uid !== uid && stat.uid !== 0) throw bad(`belongs to another user (uid ${stat.uid})`);
    if ((stat.mode & 0o022) !== 0) throw bad(`is writable by others (mode ${(stat.mode & 0o777).toString(8)}): chmod go-w`);
    text = readBoundedSync(fd, MAX_CONFIG_BYTES);
  } finally {
    fs.closeSync(fd);
  }
  if (text === undefined) throw bad(`larger than ${MAX_CONFIG_BYTES} bytes`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw bad(`not JSON: ${(error as Error).message.split("\n")[0]}`);
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw bad("not a JSON object");
  return json as Record<string, unknown>;
}
