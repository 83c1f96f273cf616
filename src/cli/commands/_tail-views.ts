/**
 * What `derun tail` prints of each view: the last lines as the view counts them (read backward from
 * the end, so a 1 GB transcript costs what its tail costs), then, with `-f`, what the session (or
 * the command) writes next, until it ends. The text view follows by complete lines; raw, byte by byte.
 */
import { constants } from "node:os";
import type { SessionInfo } from "../../core/store.ts";
import {
  followOutput,
  followText,
  type FollowEnd,
  selectText,
  type Transcript,
  rawOutput,
  rawTailStart,
  readSession,
} from "../../transcript/index.ts";
import type { Reader } from "../reader.ts";
import { writeOut } from "../ui.ts";
import { ALL, LineOut, screenOf, type View } from "./_views.ts";

export interface TailRequest {
  readonly lines: number;
  readonly follow: boolean;
}

/** The status `derun run` ended (or will end) with, for a shell: the code, 128+n for signal n, 1 when it failed. */
function sessionStatus(info: SessionInfo): number {
  if (info.state === "exited") return info.final?.exit_code ?? 0;
  if (info.state === "signaled") return 128 + (constants.signals[info.final?.signal as NodeJS.Signals] ?? 0);
  return info.state === "failed" ? 1 : 0;
}

/** A command being followed when it runs; one that has ended is only printed. */
const runningNumber = (t: Transcript): number | undefined => (t.command && t.command.output_end === null ? t.command.number : undefined);

/** Print the tail of `t` in `view` (following it when asked); the status to exit with. */
export async function printTail(reader: Reader, t: Transcript, view: View, request: TailRequest): Promise<number> {
  const end: FollowEnd = {};
  if (view === "screen") {
    const out = new LineOut();
    out.lines(request.lines > 0 ? (await screenOf(t, { tail: request.lines })).lines : []);
    out.flush();
  } else if (view === "text") await tailText(reader, t, request, end);
  else await tailRaw(reader, t, request, end);
  if (!request.follow) return 0;
  // A command's status is its own (1 when its shell reported none); a session's, how derun run ended.
  const record = end.record ?? (t.command && runningNumber(t) === undefined ? t.command : undefined);
  if (record) return record.exit_code ?? 1;
  return sessionStatus((await readSession(reader.store, t.sessionId)).info);
}

async function tailText(reader: Reader, t: Transcript, request: TailRequest, end: FollowEnd): Promise<void> {
  const out = new LineOut();
  const selected = request.lines > 0 ? (await selectText(t, { tail: request.lines }, { maxChars: ALL })).lines.map((l) => l.line) : [];
  if (!request.follow) {
    out.lines(selected.map((line) => line.text));
    return out.flush();
  }
  // Lines still open are left to the follow, which prints each once it is complete.
  out.lines(selected.filter((line) => !line.partial).map((line) => line.text));
  out.flush();
  const open = selected.filter((line) => line.partial);
  const from = open.length > 0 ? Math.min(...open.map((line) => line.start)) : t.hi;
  for await (const lines of followText(reader.store, t.sessionId, { from, after: t.hi, command: t.command?.number }, end)) {
    out.lines(lines.map((line) => line.text));
    out.flush();
  }
}

async function tailRaw(reader: Reader, t: Transcript, request: TailRequest, end: FollowEnd): Promise<void> {
  const { store } = reader;
  const from = await rawTailStart(store, t.sessionId, request.lines, t.command ? { lo: t.lo, hi: t.hi } : undefined);
  if (request.follow && t.command) {
    for await (const slices of followOutput(store, t.sessionId, { from, command: t.command.number }, end))
      for (const slice of slices) writeOut(slice.bytes);
    return;
  }
  const to = t.command ? { to: t.hi } : {};
  for await (const slice of rawOutput(store, t.sessionId, { from, follow: request.follow, ...to })) writeOut(slice.bytes);
}
