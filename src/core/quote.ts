/**
 * Quoting what a caller sent inside a message meant for people and models: at most ~100
 * characters of it, on one line, so an error never grows with its input.
 */

const CONTROL = /[\x00-\x1f\x7f-\x9f]/g;

/** Control characters as `\xNN`, so printing `text` cannot move the cursor or change colours. */
export const visible = (text: string): string => text.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);

/** Characters of the input a message may quote. */
export const QUOTE_MAX_CHARS = 100;

/** The first `max` UTF-16 units of `text`, one fewer when the cut would split a character's two halves. */
export function headOf(text: string, max: number): string {
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/**
 * `value` as JSON (strings quoted, numbers as written), cut to {@link QUOTE_MAX_CHARS} characters
 * with the total length said when cut. Never throws; never contains a line break.
 */
export function quote(value: unknown): string {
  let json: string;
  try {
    json = typeof value === "bigint" ? String(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    json = Object.prototype.toString.call(value);
  }
  // JSON.stringify escapes \n and \r, but not U+2028/U+2029, which some readers take as line breaks.
  json = json.replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
  if (json.length <= QUOTE_MAX_CHARS) return json;
  return `${headOf(json, QUOTE_MAX_CHARS)}... (${json.length} characters)`;
}

/**
 * The most characters of a message printed. Messages quote at most {@link QUOTE_MAX_CHARS} characters
 * of what was typed; this also holds one that quotes what derun does not shape (a path in a system
 * error, a session's own text in grep's per-session notices).
 */
export const MAX_MESSAGE_CHARS = 400;

/** A message as one line (control characters made visible) of at most {@link MAX_MESSAGE_CHARS}. */
export function messageLine(message: string): string {
  const line = visible(message);
  return line.length <= MAX_MESSAGE_CHARS ? line : `${headOf(line, MAX_MESSAGE_CHARS)}…`;
}
