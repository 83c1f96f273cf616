/**
 * The form of redact.json, checked with arktype. A module of its own, imported only when the file
 * exists: arktype builds its keywords when it is first loaded (about 0.4 s of CPU), which every
 * `derun grep` or `derun cat` paid before reading a byte, though almost nobody has the file.
 */
import { type } from "arktype";

const ruleType = type({
  id: "string > 0",
  pattern: "string > 0",
  "keywords?": "string[]",
  "flags?": /^[imsuv]*$/,
  "min_length?": "number.integer >= 1",
  "entropy?": "number >= 0",
  "description?": "string",
  "+": "reject",
});

export const configType = type({
  "rules?": ruleType.array(),
  "allow?": "string[]",
  "disable?": "string[]",
  "+": "reject",
});

/** The file's settings, or a one-line summary of what is wrong with them. */
export function checkConfig(json: unknown): typeof configType.infer | { readonly problem: string } {
  const parsed = configType(json);
  return parsed instanceof type.errors ? { problem: parsed.summary.split("\n").join("; ") } : parsed;
}
