import { quote } from "./quote.ts";

/**
 * Errors that cross module boundaries carry a stable `code` so the CLI can map them to exit codes
 * and the MCP adapter to `{ code, message }` tool results, without matching on message text.
 */

export type DerunErrorCode =
  | "usage" // bad flags or arguments from a human: exit 2
  | "invalid_argument" // bad arguments from an MCP client
  | "invalid_session_id"
  | "session_exists"
  | "session_not_found"
  | "session_removed" // deleted (derun rm --force) while its derun recorded it
  | "unsafe_path" // traversal or symlink escape out of sessions/<id>
  | "corrupt_session" // an artifact exists but cannot be parsed
  | "output_trimmed" // bytes a live session past max_session dropped meanwhile (read again from where it says)
  | "plugin" // a transport plugin could not be loaded, validated or opened
  | "spawn" // the command could not be started
  | "internal";

export class DerunError extends Error {
  constructor(
    readonly code: DerunErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "DerunError";
  }
}

/** `session not found: <id>`; an id no session can have (too long, odd characters) is quoted, cut. */
export const sessionNotFound = (id: string) =>
  new DerunError("session_not_found", `session not found: ${id.length <= 128 && /^[\x21-\x7e]*$/.test(id) ? id : quote(id)}`);

export const isDerunError = (e: unknown, code?: DerunErrorCode): e is DerunError =>
  e instanceof DerunError && (code === undefined || e.code === code);

/** One line, for humans: never a stack trace. */
export const describeError = (e: unknown): string => (e instanceof Error ? e.message : String(e)).split("\n")[0] ?? "unknown error";
