/**
 * Argument types shared by the tools. Validation lives in the arktype types (so the JSON Schema a
 * client sees states the same rules the server enforces); this module adds the parsing and the
 * caps that arktype cannot express as a plain JSON Schema. Descriptions are short: every tool's
 * schema is in the model's context on every turn (test/mcp/tools-list-size.test.ts keeps the total).
 * Each type is made on first use (`cursorType()`): loading a tool loads no arktype (../core/ark.ts).
 */
import { arktype, once } from "../core/ark.ts";
import { DerunError } from "../core/errors.ts";
import { SESSION_REF_HINT } from "../transcript/index.ts";

/**
 * The types below carry `expected` (the phrase in one-line errors: "cursor must be a decimal
 * string byte offset (was \"-1\")") apart from `description` (the text a model reads in the JSON
 * Schema), so each field can be documented without garbling its error message.
 */

/** A byte offset as a decimal string ("0", "4096"): no sign, no fraction, no exponent. */
export const cursorType = once(() =>
  arktype()
    .type(/^[0-9]+$/)
    .configure({ expected: "a decimal string byte offset" }),
);

/**
 * A whole number of at least 1 that a number holds exactly. Capped values are clamped by
 * {@link capped}, not rejected; 1e40 counts nothing and is refused, not clamped.
 */
export const positiveIntegerType = once(() =>
  arktype().type("0 < number.integer <= 9007199254740991").configure({ expected: "a positive integer" }),
);

/** `encoding` of a read: UTF-8 text (default) or byte-exact base64. */
const encodingType = once(() => arktype().type("'text' | 'base64'").configure({ expected: '"text" or "base64"' }));
export type { Encoding } from "../transcript/index.ts";

export const sessionIdType = once(() => arktype().type("string").configure({ expected: "a string", description: SESSION_REF_HINT }));

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
export const capped = (value: number | undefined, fallback: number, max: number): number => Math.min(value ?? fallback, max);

/** Arguments shared by derun_read_output and derun_wait_output, except `cursor`. */
export const readArgs = () =>
  ({
    session_id: sessionIdType(),
    "max_bytes?": positiveIntegerType().configure({ description: `default ${READ_DEFAULT_MAX_BYTES}` }),
    "encoding?": encodingType().configure({ description: "base64: exact bytes" }),
    "view?": arktype().type("'raw' | 'text'").configure({ expected: '"raw" or "text"', description: "text: no escape codes or redraws" }),
  }) as const;

/** A channel of the output: `pty` (a terminal session's one stream), `stdout` or `stderr` (pipe sessions). */
export const channelType = once(() =>
  arktype().type("'pty' | 'stdout' | 'stderr'").configure({
    expected: '"pty", "stdout" or "stderr"',
    description: "one stream only",
  }),
);

/** One recorded command of a `derun shell` session: its number, or "last". */
export const commandType = once(() =>
  arktype().type("number.integer > 0 | 'last'").configure({
    expected: 'a command number or "last"',
    description: "one command of a shell session",
  }),
);

/** `command` is a command of the session named: without `session_id` it is refused, never taken from whichever session is newest. */
export function commandNeedsSession(input: { readonly session_id?: string; readonly command?: unknown }): void {
  if (input.command !== undefined && input.session_id === undefined) throw new DerunError("invalid_argument", "command needs session_id");
}

/** Characters of lines an answer holds by default: a few thousand tokens, comfortable in any context. */
export const TEXT_DEFAULT_MAX_CHARS = 16000;
export const TEXT_MAX_MAX_CHARS = 200000;
/** Lines a read_text answer holds by default (within the character budget). */
export const TEXT_DEFAULT_LINES = 200;
