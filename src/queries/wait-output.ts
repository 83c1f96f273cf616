import { type } from "arktype";
import { defineQuery } from "./query.ts";
import {
  capped,
  cursorType,
  parseCursor,
  positiveIntegerType,
  READ_DEFAULT_MAX_BYTES,
  READ_MAX_MAX_BYTES,
  READ_NOTES,
  readArgs,
  WAIT_DEFAULT_TIMEOUT_MS,
  WAIT_MAX_TIMEOUT_MS,
} from "./_args.ts";
import { readOutput } from "./_output.ts";
import { resolveSessionId } from "./session-ref.ts";

/** derun_wait_output: a read that long-polls until output past the cursor is committed. */
export default defineQuery({
  name: "derun_wait_output",
  description: [
    "Wait for new output of a session past a byte cursor, then return it like derun_read_output.",
    "Returns at once when output past the cursor is already recorded or the session has ended;",
    "otherwise sleeps until the command prints more or timeout_ms passes (then timed_out is true and",
    "chunks is empty). To follow a live session: start with cursor \"0\" (or a read's next_cursor), then",
    "call again with each result's next_cursor until eof is true. waited_ms is how long this call slept.",
    READ_NOTES,
  ].join(" "),
  input: type({
    ...readArgs,
    cursor: cursorType.configure({
      description:
        "where to wait from: a decimal string byte offset, normally the previous result's next_cursor " +
        '("0" for the beginning). A cursor past the end is clamped to the end',
    }),
    "timeout_ms?": positiveIntegerType.configure({
      description:
        `how long to wait at most, in milliseconds, a positive integer (default ${WAIT_DEFAULT_TIMEOUT_MS}; ` +
        `larger values are clamped to ${WAIT_MAX_TIMEOUT_MS})`,
    }),
    "+": "reject",
  }),
  annotations: {
    title: "Wait for session output",
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  async handler(input, { store, signal }) {
    const started = performance.now();
    const timeoutMs = capped(input.timeout_ms, WAIT_DEFAULT_TIMEOUT_MS, WAIT_MAX_TIMEOUT_MS);
    const maxBytes = capped(input.max_bytes, READ_DEFAULT_MAX_BYTES, READ_MAX_MAX_BYTES);
    const encoding = input.encoding ?? "text";
    const elapsed = () => Math.round(performance.now() - started);
    const sessionId = await resolveSessionId(store, input.session_id);
    let cursor = parseCursor(input.cursor);
    for (;;) {
      const { result, committedEnd } = await readOutput(store, sessionId, cursor, maxBytes, encoding);
      const remaining = timeoutMs - elapsed();
      if (result.chunks.length > 0 || result.eof || remaining <= 0 || signal.aborted) {
        const timedOut = result.chunks.length === 0 && !result.eof;
        return { ...result, timed_out: timedOut, waited_ms: elapsed() };
      }
      // Nothing readable: wait past the committed end, not the cursor, so that a character whose
      // last bytes are still missing (held back by the text read) does not wake us at once.
      cursor = Number(result.next_cursor);
      await store.waitForOutput(sessionId, committedEnd, remaining, signal);
    }
  },
});
