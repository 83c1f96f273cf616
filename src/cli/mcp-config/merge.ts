/**
 * `derun mcp config <client> --merge <file>`: puts derun's entry into the client's JSON file and
 * keeps everything else there (other servers, settings). Redirecting the printed JSON into the file
 * would replace them all, and appending would make it invalid. The file is read (absent: made, with
 * its directory), derun's entry set in its map (`mcpServers`, or VS Code's `servers`), and the whole
 * written back atomically (a file that is a link is written where it points, so a link into a
 * dotfiles repository stays one). A file that is not plain JSON (comments) is left as it is.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { DerunError, describeError } from "../../core/errors.ts";
import { writeFileAtomic } from "../../safe-fs/index.ts";
import { jsonText } from "./quote.ts";

/** Largest file read: clients' configuration files are a few KB. */
const MAX_BYTES = 4 * 1024 * 1024;

type JsonObject = Record<string, unknown>;
const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

/** Merge `entry` (`{ map: { derun: {...} } }`) into `file`; says whether derun was there already. */
export function mergeJsonFile(file: string, entry: JsonObject): "added" | "replaced" {
  const target = fs.existsSync(file) ? fs.realpathSync(file) : path.resolve(file);
  const config = read(file, target);
  let replaced = false;
  for (const [key, servers] of Object.entries(entry)) {
    const map = config[key] ?? {};
    if (!isObject(map) || !isObject(servers))
      throw new DerunError("usage", `${file}: "${key}" is not an object; add derun's entry by hand`);
    replaced ||= Object.keys(servers).some((name) => Object.hasOwn(map, name));
    config[key] = { ...map, ...servers };
  }
  fs.mkdirSync(path.dirname(target), { recursive: true });
  writeFileAtomic(target, `${jsonText(config)}\n`);
  return replaced ? "replaced" : "added";
}

function read(file: string, target: string): JsonObject {
  let text: string;
  try {
    const stat = fs.statSync(target);
    if (!stat.isFile()) throw new DerunError("usage", `${file} is not a regular file`);
    if (stat.size > MAX_BYTES) throw new DerunError("usage", `${file} is larger than ${MAX_BYTES} bytes; add derun's entry by hand`);
    text = fs.readFileSync(target, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    if (error instanceof DerunError) throw error;
    throw new DerunError("usage", `cannot read ${file}: ${describeError(error)}`);
  }
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new DerunError("usage", `${file} is not plain JSON (${describeError(error)}; comments?): add derun's entry by hand`);
  }
  if (!isObject(value)) throw new DerunError("usage", `${file} does not hold a JSON object; add derun's entry by hand`);
  return value;
}
