/** Command lines for people to read or paste: each word quoted only when a shell would need it. */

const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** `text` as one single-quoted word of a POSIX shell (bash, zsh, sh): a `'` inside as `'\''`. */
export const singleQuoted = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * `word` as one word of a command line. POSIX shells: single quotes. Windows: double quotes, which
 * PowerShell and cmd both take as one argument for a path (paths cannot hold `"`).
 */
export function shellWord(word: string, platform: NodeJS.Platform): string {
  if (SAFE_WORD.test(word)) return word;
  if (platform === "win32") return `"${word}"`;
  return singleQuoted(word);
}

export const shellLine = (words: readonly string[], platform: NodeJS.Platform): string =>
  words.map((word) => shellWord(word, platform)).join(" ");
