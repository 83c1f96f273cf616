/** Quoting for the command lines and TOML that `derun mcp config` prints. */

const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * `word` as one word of a command line. POSIX shells: single quotes. Windows: double quotes, which
 * PowerShell and cmd both take as one argument for a path (paths cannot hold `"`).
 */
export function shellWord(word: string, platform: NodeJS.Platform): string {
  if (SAFE_WORD.test(word)) return word;
  if (platform === "win32") return `"${word}"`;
  return `'${word.replaceAll("'", "'\\''")}'`;
}

export const shellLine = (words: readonly string[], platform: NodeJS.Platform): string =>
  words.map((word) => shellWord(word, platform)).join(" ");

/**
 * A TOML basic string. JSON's string escapes (`\"`, `\\`, `\n`, `\uXXXX`) are all valid TOML
 * basic-string escapes, and JSON.stringify escapes every control character TOML forbids raw.
 */
export const tomlString = (value: string): string => JSON.stringify(value);

export const jsonText = (value: unknown): string => JSON.stringify(value, null, 2);
