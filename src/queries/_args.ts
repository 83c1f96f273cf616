/**
 * Argument types shared by the tools. Validation lives in the arktype types (so the JSON Schema a
 * client sees states the same rules the server enforces); this module adds the parsing and the
 * caps that arktype cannot express as a plain JSON Schema.
 */
import { type } from "arktype";
import { SESSION_REF_HINT } from "./session-ref.ts";

/**
 * The types below carry `expected` (the phrase in one-line errors: "cursor must be a decimal
 * string byte offset (was \"-1\")") apart from `description` (the longer text a model reads in
 * the JSON Schema), so each field can be documented without garbling its error message.
 */

/** A byte offset as a decimal string ("0", "4096"): no sign, no fraction, no exponent. */
export const cursorType = type(/^[0-9]+$/).configure({ expected: "a decimal string byte offset" });

/**
 * A whole number of at least 1 that a number holds exactly. Capped values are clamped by
 * {@link capped}, not rejected; 1e40 counts nothing and is refused, not clamped.
 */
export const positiveIntegerType = type("0 < number.integer <= 9007199254740991").configure({ expected: "a positive integer" });

/** `encoding` of a read: UTF-8 text (default) or byte-exact base64. */
const encodingType = type("'text' | 'base64'").configure({ expected: '"text" or "base64"' });
export type Encoding = typeof encodingType.infer;

export const sessionIdType = type("string").configure({
  expected: "a string",
  description: `the session id from derun_list_sessions, or ${SESSION_REF_HINT}`,
});

export const READ_DEFAULT_MAX_BYTES = 65536;
/** 1 MiB: enough for any single answer a model can use; larger requests are clamped. */
export const READ_MAX_MAX_BYTES = 1 << 20;
export const WAIT_DEFAULT_TIMEOUT_MS = 30000;
export const WAIT_MAX_TIMEOUT_MS = 60000;
export const LIST_DEFAULT_LIMIT = 50;
export const LIST_MAX_LIMIT = 1000;

/**
 * Parse a cursor already checked by {@link cursorType} (absent means "0"). Offsets beyond what a
 * number holds exactly lie past the end of any transcript: they become MAX_SAFE_INTEGER, which the
 * store clamps to the end like any other cursor past it.
 */
export const parseCursor = (cursor: string | undefined): number => {
  const n = Number(cursor ?? 0);
  return Number.isSafeInteger(n) ? n : Number.MAX_SAFE_INTEGER;
};

/** The value or its default, clamped to `max` (a cap is a ceiling, not an error). */
export const capped = (value: number | undefined, fallback: number, max: number): number =>
  Math.min(value ?? fallback, max);

/** Arguments shared by derun_read_output and derun_wait_output, except `cursor`. */
export const readArgs = {
  session_id: sessionIdType,
  "max_bytes?": positiveIntegerType.configure({
    description:
      `the most bytes to return, a positive integer (default ${READ_DEFAULT_MAX_BYTES}; larger values are clamped to ` +
      `${READ_MAX_MAX_BYTES}). Text stops before a character that does not fit, unless it is the first one`,
  }),
  "encoding?": encodingType.configure({
    description:
      '"text" (default): chunks carry `data`, the bytes decoded as UTF-8 (invalid bytes shown as U+FFFD). ' +
      '"base64": chunks carry `data_base64`, the exact bytes',
  }),
} as const;

/** The paragraph both read tools share: what the cursor and the flags mean. */
export const READ_NOTES = [
  "Output is the raw bytes the command wrote to its terminal, including ANSI escape sequences (colors,",
  "cursor movement, carriage returns); in pipe mode each chunk says whether it came from stdout or stderr.",
  "A cursor is a decimal string byte offset; every chunk has start_cursor and end_cursor, and next_cursor",
  "is where the next read starts (text is cut only between characters, so it always starts cleanly).",
  "at_tail: true means next_cursor is at the end of what is recorded so far (the first bytes of a character",
  "whose last bytes are not written yet are held back until they are). eof: true means the session has",
  "ended and no byte will ever follow next_cursor. session_state is the session's state at the read.",
].join(" ");
