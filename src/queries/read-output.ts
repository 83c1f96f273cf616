import { type } from "arktype";
import { defineQuery } from "./query.ts";
import { capped, cursorType, parseCursor, READ_DEFAULT_MAX_BYTES, READ_MAX_MAX_BYTES, READ_NOTES, readArgs } from "./_args.ts";
import { readOutput } from "./_output.ts";
import { resolveSessionId } from "./session-ref.ts";

/** derun_read_output: a window of a session's recorded output, from a byte cursor. */
export default defineQuery({
  name: "derun_read_output",
  description: [
    "Read a recorded session's output from a byte cursor, returning at once. Use it to replay a finished",
    'command from cursor "0" or to page through a long transcript: repeat with next_cursor until at_tail',
    "(or eof). To follow a running session as it prints, use derun_wait_output instead.",
    READ_NOTES,
  ].join(" "),
  input: type({
    ...readArgs,
    "cursor?": cursorType.configure({
      description:
        'where to start reading: a decimal string byte offset into the output (default "0", the beginning); ' +
        "pass the previous result's next_cursor to continue. A cursor past the end is clamped to the end",
    }),
    "+": "reject",
  }),
  annotations: {
    title: "Read session output",
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  async handler(input, { store }) {
    const maxBytes = capped(input.max_bytes, READ_DEFAULT_MAX_BYTES, READ_MAX_MAX_BYTES);
    const { result } = await readOutput(store, await resolveSessionId(store, input.session_id), parseCursor(input.cursor), maxBytes, input.encoding ?? "text");
    return result;
  },
});
