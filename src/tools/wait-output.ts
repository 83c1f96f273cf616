import { arktype } from "../core/ark.ts";
import { DerunError } from "../core/errors.ts";
import { isLiveState } from "../core/store.ts";
import { compilePattern } from "../views/search.ts";
import { defineQuery } from "../core/tool.ts";
import {
  capped,
  cursorType,
  parseCursor,
  positiveIntegerType,
  READ_DEFAULT_MAX_BYTES,
  READ_MAX_MAX_BYTES,
  readArgs,
  WAIT_DEFAULT_TIMEOUT_MS,
  WAIT_MAX_TIMEOUT_MS,
} from "./_args.ts";
import { renderRead } from "./_output-text.ts";
import { checkReadMode, readWindowAs, type ReadMode } from "./_read-mode.ts";
import { waitUntil, type WaitResult, resolveSessionId } from "../transcript/index.ts";

/** `until` answers a line of the text view: raw bytes or base64 cannot be that answer. */
const checkUntilMode = (mode: ReadMode): void => {
  if (mode.encoding === "base64")
    throw new DerunError("invalid_argument", 'until answers a line of the text view: leave out encoding "base64"');
  if (mode.view === "raw") throw new DerunError("invalid_argument", 'until answers a line of the text view: leave out view "raw"');
};

/** derun_wait_output: a read that long-polls until output past the cursor is committed, or until a line matches. */
export default defineQuery({
  name: "derun_wait_output",
  description: [
    "Wait for output past cursor; return it like derun_read_output (pass next_cursor on). until: a regex;",
    "return the first new line (or prompt) matching it.",
  ].join(" "),
  input: () =>
    arktype().type({
      ...readArgs(),
      cursor: cursorType(),
      "timeout_ms?": positiveIntegerType().configure({ description: `default ${WAIT_DEFAULT_TIMEOUT_MS}` }),
      "until?": arktype().type("string").configure({ expected: "a string" }),
      "+": "reject",
    }),
  annotations: {
    title: "Wait for session output",
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  async handler(input, { store, signal }): Promise<WaitResult> {
    checkReadMode(input);
    if (input.until !== undefined) checkUntilMode(input);
    const until = input.until === undefined ? undefined : compilePattern(input.until);
    const started = performance.now();
    const timeoutMs = capped(input.timeout_ms, WAIT_DEFAULT_TIMEOUT_MS, WAIT_MAX_TIMEOUT_MS);
    const sessionId = await resolveSessionId(store, input.session_id);
    let cursor = parseCursor(input.cursor);
    const maxBytes = capped(input.max_bytes, READ_DEFAULT_MAX_BYTES, READ_MAX_MAX_BYTES);
    if (until) return waitUntil(store, sessionId, cursor, until, timeoutMs, maxBytes, signal);
    const elapsed = () => Math.round(performance.now() - started);
    for (;;) {
      const { result, committedEnd, heldMs } = await readWindowAs(store, sessionId, cursor, maxBytes, input);
      const remaining = timeoutMs - elapsed();
      // A session that is not live writes nothing more: waiting again would only read the same bytes.
      const ended = !isLiveState(result.session_state);
      if (result.chunks.length > 0 || ended || remaining <= 0 || signal.aborted) {
        const timedOut = result.chunks.length === 0 && !ended;
        return { ...result, timed_out: timedOut, waited_ms: elapsed() };
      }
      // Nothing readable: wait past the committed end, not the cursor, so that a character whose
      // last bytes are still missing (held back by the text read) does not wake us at once.
      cursor = Number(result.next_cursor);
      // A word held back at the live tail is shown after heldMs even if nothing follows it.
      await store.waitForOutput(sessionId, committedEnd, Math.min(remaining, heldMs ?? remaining), signal);
    }
  },
  render: (result) => {
    const text = renderRead(result, result);
    if (result.match === undefined) return text;
    const [header, ...rest] = text.split("\n");
    return [`${header} · matched ${JSON.stringify(result.match.slice(0, 100))}`, ...rest].join("\n");
  },
});
