/**
 * Pieces of the text a model reads in every answer: a one-line header of facts joined by " · ",
 * then the lines themselves. Values that come from outside (command lines, paths) are cut so a
 * header stays one bounded line.
 */
import type { DerunSessionState } from "../core/enums.ts";
import { visible } from "../core/quote.ts";

export const SEP = " · ";

/** `text` on one line, at most `max` characters (an ellipsis marks the cut), control characters shown as `\xNN`, not kept. */
export const oneLine = (text: string, max = 100): string => {
  const flat = visible(text.replace(/[\r\n\t]+/g, " "));
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/**
 * argv as a person would type it (words with blanks or quotes quoted; the program by its file name,
 * as on a shell's PATH), cut to one line. derun_get_session has the exact argv.
 */
export const commandLine = (argv: readonly string[], max = 100): string => {
  const program = (argv[0] ?? "").replace(/^.*[\\/]/, "").replace(/\.exe$/, "");
  const quoted = (word: string) => {
    const flat = word.replace(/\s+/g, " ").trim(); // a script given as an argument, on one line
    return flat === "" || /[\s"'\\$`]/.test(flat) ? `"${flat.replace(/["\\$`]/g, "\\$&")}"` : flat;
  };
  return oneLine([program, ...argv.slice(1)].map(quoted).join(" "), max);
};

/** How a session ended, or that it has not: "running", "exited 1", "signaled SIGTERM", "failed: <why>". */
export const outcome = (fields: {
  readonly state: DerunSessionState | string;
  readonly exit_code?: number | null;
  readonly signal?: string | null;
  readonly error?: string | null;
}): string => {
  if (fields.state === "exited" && fields.exit_code !== undefined && fields.exit_code !== null) return `exited ${fields.exit_code}`;
  if (fields.state === "signaled" && fields.signal) return `signaled ${fields.signal}`;
  if (fields.state === "failed" && fields.error) return `failed: ${oneLine(fields.error, 80)}`;
  return fields.state;
};

/** "lines 3-7 of 120", "all 7 lines", or "no lines of 120". */
export const lineSpan = (first: number | undefined, last: number | undefined, total: number): string => {
  if (first === undefined || last === undefined) return total === 0 ? "no lines" : `no lines of ${total}`;
  return first === 1 && last === total ? `all ${total} line${total === 1 ? "" : "s"}` : `lines ${first}-${last} of ${total}`;
};

/** A byte count for people: 512 B, 1.5 KB, 12 MB. */
export const size = (bytes: number): string => {
  if (bytes < 1000) return `${bytes} B`;
  const [value, unit] = bytes < 1e6 ? [bytes / 1e3, "KB"] : bytes < 1e9 ? [bytes / 1e6, "MB"] : [bytes / 1e9, "GB"];
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${unit}`;
};

/** An RFC 3339 time as "2026-05-01 12:00:03" (UTC), shorter to read. */
export const when = (iso: string | null | undefined): string => (iso ? iso.replace("T", " ").replace(/\.\d+Z$|Z$/, "") : "?");

/** "2 secrets masked": how many values redaction hid in an answer (docs/secrets.md). */
export const maskedFact = (n: number): string => `${n} secret${n === 1 ? "" : "s"} masked`;

/** Header and lines as one text. */
export const withLines = (header: string, lines: readonly string[]): string =>
  lines.length === 0 ? header : `${header}\n${lines.join("\n")}`;
