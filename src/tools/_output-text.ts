/**
 * derun_read_output and derun_wait_output answers as a model reads them: a header with the cursors
 * and whether more will come, then the chunks' text as it is (a `[channel]` line before each chunk
 * when the answer holds more than one channel; base64 chunks one per line).
 */
import { type ReadOutputResult, SEP, maskedFact, notRecordedFact } from "../transcript/index.ts";

export interface WaitFacts {
  readonly timed_out: boolean;
  readonly waited_ms: number;
}

const where = (r: ReadOutputResult): string => {
  if (r.eof) return `end of output, session ${r.session_state}`;
  if (r.at_tail) return `at the tail, session ${r.session_state}: wait from next_cursor ${r.next_cursor} for more`;
  return `more follows: read from next_cursor ${r.next_cursor}`;
};

export function renderRead(r: ReadOutputResult, wait?: WaitFacts): string {
  return renderReadParts(r, wait).join("");
}

/**
 * {@link renderRead}'s text as the pieces it joins: the header, then each chunk's framing and its
 * data as they are (the MCP answer escapes them piece by piece: src/mcp/json-line.ts).
 */
export function renderReadParts(r: ReadOutputResult, wait?: WaitFacts): string[] {
  const from = r.chunks[0]?.start_cursor ?? r.next_cursor;
  const facts = [`session ${r.session_id}`, r.chunks.length === 0 ? `no new bytes at ${from}` : `bytes ${from}-${r.next_cursor}`, where(r)];
  if (wait) facts.push(wait.timed_out ? `timed out after ${wait.waited_ms} ms` : `waited ${wait.waited_ms} ms`);
  if (r.redacted) facts.push(maskedFact(r.redacted));
  if (r.not_recorded) facts.push(notRecordedFact(r.not_recorded));
  const channels = new Set(r.chunks.map((c) => c.channel));
  const parts: string[] = [facts.join(SEP)];
  let endsWithLf = true; // nothing yet: no separator needed
  let body = false;
  for (const chunk of r.chunks) {
    const data = "data" in chunk ? chunk.data : chunk.data_base64;
    const sep = endsWithLf ? "" : "\n";
    // The first piece of the body follows the header after a newline.
    const lead = body ? "" : "\n";
    if ("data_base64" in chunk) parts.push(`${lead}${sep}[${chunk.channel} ${chunk.start_cursor}-${chunk.end_cursor} base64] `, data, "\n");
    else if (channels.size > 1) parts.push(`${lead}${sep}[${chunk.channel}]\n`, data);
    else if (data.length > 0) parts.push(lead, data);
    const last = "data_base64" in chunk ? "\n" : data.length > 0 ? data : channels.size > 1 ? "\n" : "";
    if (last.length > 0) {
      endsWithLf = last.endsWith("\n");
      body = true;
    }
  }
  return parts;
}
