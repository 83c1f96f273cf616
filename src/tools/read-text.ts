import { arktype } from "../core/ark.ts";
import { SCHEMA_VERSION } from "../core/enums.ts";
import { DerunError } from "../core/errors.ts";
import type { LineRange } from "../views/lines.ts";
import { defineQuery } from "../core/tool.ts";
import {
  capped,
  channelType,
  commandType,
  positiveIntegerType,
  sessionIdType,
  TEXT_DEFAULT_LINES,
  TEXT_DEFAULT_MAX_CHARS,
  TEXT_MAX_MAX_CHARS,
} from "./_args.ts";
import {
  subjectOf,
  subjectText,
  type Subject,
  lineSpan,
  SEP,
  redactedField,
  withLines,
  screenLines,
  textLines,
  type ReadTextLines,
  openTranscript,
  oneStreamReason,
  withoutPromptFiller,
  maskedFact,
  gapsBetween,
  notRecordedField,
  notRecordedFact,
  type NotRecorded,
} from "../transcript/index.ts";

export type ReadTextResult = Subject &
  ReadTextLines & { readonly schema_version: typeof SCHEMA_VERSION; readonly not_recorded?: readonly NotRecorded[] };

/** Which lines were asked for: a tail by default. */
function rangeOf(input: { tail_lines?: number; head_lines?: number; from_line?: number }): LineRange {
  if (input.tail_lines !== undefined && (input.head_lines !== undefined || input.from_line !== undefined)) {
    throw new DerunError("invalid_argument", "tail_lines goes alone: use head_lines, or from_line with head_lines as the count");
  }
  if (input.from_line !== undefined) return { from: input.from_line, count: input.head_lines ?? TEXT_DEFAULT_LINES };
  if (input.head_lines !== undefined) return { head: input.head_lines };
  return { tail: input.tail_lines ?? TEXT_DEFAULT_LINES };
}

/** derun_read_text: what a session (or one command of a shell session) printed, as a person would read it. */
export default defineQuery({
  name: "derun_read_text",
  description: [
    "What a session (or one command) printed, as lines, and how it ended. Default: the last lines of the",
    "final screen (terminal sessions) or of the text (pipe sessions).",
  ].join(" "),
  input: () =>
    arktype().type({
      session_id: sessionIdType(),
      "view?": arktype().type("'text' | 'screen'").configure({
        expected: '"text" or "screen"',
        description: "screen: the terminal at the end; text: all lines",
      }),
      "tail_lines?": positiveIntegerType().configure({ description: `default ${TEXT_DEFAULT_LINES}` }),
      "head_lines?": positiveIntegerType().configure({ description: "the first N lines, or N from from_line" }),
      "from_line?": positiveIntegerType(),
      "channel?": channelType(),
      "max_chars?": positiveIntegerType().configure({ description: `default ${TEXT_DEFAULT_MAX_CHARS}` }),
      "command?": commandType(),
      "+": "reject",
    }),
  annotations: {
    title: "Read session text",
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  structured: false,
  async handler(input, { store, signal, limits }): Promise<ReadTextResult> {
    const range = rangeOf(input);
    const opened = await openTranscript(store, input.session_id, input.command, limits?.windowBytes);
    const view = input.view ?? (opened.info.meta.tty_attached ? "screen" : "text");
    const t = view === "text" ? await withoutPromptFiller(opened) : opened;
    if (view === "screen" && input.channel !== undefined)
      throw new DerunError("invalid_argument", 'channel applies to view "text" (a screen shows every stream)');
    const oneStream = input.channel === undefined ? undefined : oneStreamReason(t, input.channel);
    if (oneStream !== undefined) throw new DerunError("invalid_argument", `${oneStream}: leave out channel`);
    const maxChars = capped(input.max_chars, TEXT_DEFAULT_MAX_CHARS, TEXT_MAX_MAX_CHARS);
    const lines = view === "screen" ? await screenLines(t, range, maxChars) : await textLines(t, range, maxChars, input.channel, signal);
    const subject = subjectOf(t);
    const redacted = (subject.redacted ?? 0) + (lines.redacted ?? 0);
    // Output the person kept out of the transcript (derun pause, ignore rules) within these lines' bytes.
    const end = Number(lines.end_cursor);
    const gaps = await gapsBetween(store, t.sessionId, Number(lines.start_cursor), end, end >= t.hi);
    return { schema_version: SCHEMA_VERSION, ...subject, ...lines, ...redactedField(redacted), ...notRecordedField(gaps) };
  },
  render: (r) => {
    const view =
      r.view === "text"
        ? `text${r.channel ? ` of ${r.channel}` : ""}`
        : `screen${r.size?.endsWith("assumed") ? ` (${r.size})` : ""}${r.alternate_screen ? ", a full-screen program's last frame" : ""}`;
    const facts = [subjectText(r), view, lineSpan(r.first_line, r.last_line, r.total_lines)];
    if (r.truncated) facts.push("more lines than max_chars allows");
    if (r.scrolled_out) facts.push("earlier lines scrolled out of the scrollback");
    facts.push(`bytes ${r.start_cursor}-${r.end_cursor}`);
    if (r.redacted) facts.push(maskedFact(r.redacted));
    if (r.not_recorded) facts.push(notRecordedFact(r.not_recorded));
    return withLines(facts.join(SEP), r.lines);
  },
});
