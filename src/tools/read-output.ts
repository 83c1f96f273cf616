import { arktype } from "../core/ark.ts";
import { defineQuery } from "../core/tool.ts";
import { capped, cursorType, parseCursor, READ_DEFAULT_MAX_BYTES, READ_MAX_MAX_BYTES, readArgs } from "./_args.ts";
import { gapsBetween, notRecordedField, type ReadOutputResult, resolveSessionId } from "../transcript/index.ts";
import { renderRead, renderReadParts } from "./_output-text.ts";
import { checkReadMode, readWindowAs } from "./_read-mode.ts";

/** derun_read_output: a window of a session's recorded output, from a byte cursor. */
export default defineQuery({
  name: "derun_read_output",
  description: [
    'Raw output from a byte cursor (decimal string, default "0"); repeat with next_cursor until eof.',
    "For what happened, derun_read_text is shorter.",
  ].join(" "),
  input: () =>
    arktype().type({
      ...readArgs(),
      "cursor?": cursorType(),
      "+": "reject",
    }),
  annotations: {
    title: "Read session output",
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  async handler(input, { store }): Promise<ReadOutputResult> {
    checkReadMode(input);
    const maxBytes = capped(input.max_bytes, READ_DEFAULT_MAX_BYTES, READ_MAX_MAX_BYTES);
    const id = await resolveSessionId(store, input.session_id);
    const cursor = parseCursor(input.cursor);
    const { result } = await readWindowAs(store, id, cursor, maxBytes, input);
    const gaps = await gapsBetween(store, id, cursor, Number(result.next_cursor), result.at_tail);
    return { ...result, ...notRecordedField(gaps) };
  },
  render: (result) => renderRead(result),
  renderParts: (result) => renderReadParts(result),
});
