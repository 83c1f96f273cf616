/** Quoting for the command lines and TOML that `derun mcp config` prints. */

export { shellLine, shellWord } from "../../core/shell-quote.ts";

/**
 * A TOML basic string. JSON's string escapes (`\"`, `\\`, `\n`, `\uXXXX`) are all valid TOML
 * basic-string escapes, and JSON.stringify escapes every control character TOML forbids raw.
 */
export const tomlString = (value: string): string => JSON.stringify(value);

export const jsonText = (value: unknown): string => JSON.stringify(value, null, 2);
