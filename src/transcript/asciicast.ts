/**
 * A session as an asciinema recording, in either of asciinema's formats
 * (docs.asciinema.org/manual/asciicast/v2 and .../v3):
 *
 * - v2 (asciinema 2; the default): a header with `width`/`height`, then `[t, code, data]` events at
 *   their time since the start. v2 has no exit event: the status is a final marker `exited 0`.
 * - v3 (asciinema 3 writes it by default): a header with `term: { cols, rows }`, then events at their
 *   interval since the previous event; a marker `m` at each command a `derun shell` ran, with its
 *   command line, and the exit status as an `x` event.
 *
 * Both: one `o` per index record (both channels of a pipe session, in recorded order), `r` where the
 * window was resized. Text is UTF-8 decoded with one streaming decoder, so a character split across
 * records is never split across events; bytes that are not UTF-8 become U+FFFD (the format carries
 * text, not bytes).
 */
import { constants } from "node:os";
import { shellLine } from "../core/shell-quote.ts";
import type { SessionInfo, Store } from "../core/store.ts";
import { shellCommands } from "./commands.ts";
import { maskArgv, redactorFor } from "./masking.ts";
import { rawOutput } from "./raw-output.ts";

/** The size asciinema assumes when a recording does not say (and derun had no terminal). */
export const DEFAULT_COLS = 80;
export const DEFAULT_ROWS = 24;

export type AsciicastVersion = 2 | 3;

/** The header: the terminal size the command started with (from meta.json, else 80x24), start, command. */
export function asciicastHeader(info: SessionInfo, version: AsciicastVersion = 2): Record<string, unknown> {
  const started = Date.parse(info.meta.started_at);
  const ended = info.ended_at === undefined ? NaN : Date.parse(info.ended_at);
  const cols = info.meta.cols ?? DEFAULT_COLS;
  const rows = info.meta.rows ?? DEFAULT_ROWS;
  const rest = {
    timestamp: Math.floor(started / 1000),
    command: shellLine(maskArgv(redactorFor(info.meta), info.meta.command).argv, "linux"),
    title: `derun ${info.meta.session_id}`,
  };
  if (version === 3) return { version: 3, term: { cols, rows }, ...rest };
  return { version: 2, width: cols, height: rows, ...(Number.isFinite(ended) ? { duration: seconds(ended - started) } : {}), ...rest };
}

/** The v2 exit marker's label: `exited 0`, `signaled SIGTERM`, `failed`; none while the session runs. */
export function exitLabel(info: SessionInfo): string | undefined {
  if (info.state === "exited") return `exited ${info.final?.exit_code ?? "?"}`;
  if (info.state === "signaled") return `signaled ${info.final?.signal ?? "?"}`;
  if (info.state === "failed") return "failed";
  return undefined;
}

/**
 * The v3 exit status: the exit code, or 128 + the signal's number as a shell reports it (v3's `x`
 * is a status, and asciinema itself records the shell's); none while the session runs or when it
 * failed without a status.
 */
export function exitStatus(info: SessionInfo): number | undefined {
  if (info.state === "exited") return info.final?.exit_code ?? undefined;
  if (info.state === "signaled") {
    const signo = constants.signals[info.final?.signal as NodeJS.Signals];
    return signo === undefined ? undefined : 128 + signo;
  }
  return undefined;
}

const seconds = (ms: number): number => Math.round(Math.max(0, ms)) / 1000;

/** Something that happens at a byte offset of the output: a resize, or a shell command's start. */
interface Mark {
  readonly offset: number;
  readonly timestamp: string;
  readonly code: "r" | "m";
  readonly data: string;
  /** Secrets masked in a command's line. */
  readonly redacted?: number;
}

/** Counts the secrets an export masked (its output's, its command lines'), for a page that says how many. */
export interface MaskTally {
  masked: number;
}

export interface AsciicastOptions {
  /** Add up the secrets masked here. */
  readonly tally?: MaskTally;
  /**
   * Show a pipe session's output as a terminal would have (its LF as CR LF, the tty's onlcr): a
   * page's player otherwise draws every line starting where the previous one ended.
   */
  readonly onlcr?: boolean;
  /** Only the bytes `[from, to)` (one command of a shell session), timed from `startedAt`, without the session's exit. */
  readonly part?: { readonly from: number; readonly to: number; readonly startedAt: string };
}

async function marksOf(store: Store, info: SessionInfo, version: AsciicastVersion): Promise<Mark[]> {
  const id = info.meta.session_id;
  const marks: Mark[] = (await store.events(id)).map((e) => ({
    offset: e.offset,
    timestamp: e.timestamp,
    code: "r",
    data: `${e.cols}x${e.rows}`,
  }));
  if (version === 3 && info.meta.records_commands) {
    // Command lines as readers get them: masked (shellCommands).
    for (const c of await shellCommands(store, info)) {
      if (c.output_start === null || c.started_at === null) continue;
      marks.push({ offset: c.output_start, timestamp: c.started_at, code: "m", data: c.command_line ?? "", redacted: c.redacted });
    }
  }
  // Stable: at one offset a resize stays before a command's marker, as recorded.
  return marks.sort((a, b) => a.offset - b.offset);
}

/** The marks of a part: its commands', and the resizes before it at its start (the size it begins with). */
function marksIn(marks: Mark[], part: AsciicastOptions["part"]): Mark[] {
  if (part === undefined) return marks;
  return marks
    .filter((m) => m.offset < part.to && (m.code === "r" || m.offset >= part.from))
    .map((m) => (m.offset < part.from ? { ...m, offset: part.from, timestamp: part.startedAt } : m));
}

/**
 * The lines of the asciicast file (each without its newline): the header, then the events in time
 * order. Reads the output once, in blocks; holds one block at a time.
 */
export async function* asciicastLines(
  store: Store,
  sessionId: string,
  version: AsciicastVersion = 2,
  options: AsciicastOptions = {},
): AsyncGenerator<string> {
  const { tally, part } = options;
  const info = await store.get(sessionId);
  const onlcr = options.onlcr === true && info.meta.transport_mode === "pipe";
  const marks = marksIn(await marksOf(store, info, version), part);
  const started = Date.parse(part?.startedAt ?? info.meta.started_at);
  yield JSON.stringify(asciicastHeader(info, version));
  if (tally) tally.masked += maskArgv(redactorFor(info.meta), info.meta.command).count;

  // Players expect times that never go back: a clock step or a late record keeps the previous time.
  // Times are whole milliseconds, so v3's intervals add up to v2's times exactly.
  let last = 0;
  let previous = 0;
  const at = (timestamp: string) => (last = Math.max(last, Math.round(Date.parse(timestamp) - started) || 0));
  const event = (ms: number, code: string, data: string) => {
    const time = version === 3 ? (ms - previous) / 1000 : ms / 1000;
    previous = ms;
    return `[${time}, ${JSON.stringify(code)}, ${JSON.stringify(data)}]`;
  };

  const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
  let next = 0;
  for await (const slice of rawOutput(store, sessionId, {
    from: part?.from ?? 0,
    to: part?.to ?? info.output_bytes,
    ...(tally ? { onMasked: (n: number) => (tally.masked += n) } : {}),
  })) {
    // A resize or a command applies to the bytes from its offset on: it goes before them, also when
    // its offset falls inside a record (a shell's mark and the command's first output in one read).
    let from = slice.start;
    for (;;) {
      const mark = marks[next];
      const to =
        mark !== undefined && mark.offset < slice.start + slice.bytes.length
          ? Math.max(mark.offset, from)
          : slice.start + slice.bytes.length;
      const decoded = decoder.decode(slice.bytes.subarray(from - slice.start, to - slice.start), { stream: true });
      const text = onlcr ? decoded.replace(/\n/g, "\r\n") : decoded;
      if (text.length > 0) yield event(at(slice.timestamp), "o", text);
      from = to;
      if (mark === undefined || mark.offset >= slice.start + slice.bytes.length) break;
      if (tally) tally.masked += mark.redacted ?? 0;
      yield event(at(mark.timestamp), mark.code, mark.data);
      next++;
    }
  }
  const rest = onlcr ? decoder.decode().replace(/\n/g, "\r\n") : decoder.decode();
  if (rest.length > 0) yield event(last, "o", rest);
  for (const mark of marks.slice(next)) {
    if (tally) tally.masked += mark.redacted ?? 0;
    yield event(at(mark.timestamp), mark.code, mark.data);
  }
  if (part) return;
  const end = info.ended_at === undefined ? last : at(info.ended_at);
  if (version === 2) {
    const label = exitLabel(info);
    if (label !== undefined) yield event(end, "m", label);
  } else {
    const status = exitStatus(info);
    if (status !== undefined) yield event(end, "x", String(status));
  }
}
