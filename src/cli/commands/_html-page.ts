/**
 * `derun export --format html`: the session as one page that plays in any browser offline
 * (src/views/html-page), its facts worded for a person: the command, when, how long, how it ended,
 * and a `derun shell` session's commands as chapters (a plain `derun run` session is one chapter).
 * With `--command N`, one command of a shell session, from its prompt to its end. More output than
 * a page should carry is refused before anything is read.
 */
import pkg from "../../../package.json" with { type: "json" };
import { DerunError } from "../../core/errors.ts";
import type { SessionInfo, Store } from "../../core/store.ts";
import {
  type CommandPart,
  type CommandSelector,
  commandPart,
  DEFAULT_COLS,
  DEFAULT_ROWS,
  type PageRecording,
  pageRecording,
  readSession,
  redactionEnabled,
} from "../../transcript/index.ts";
import { htmlPage, type PageChapter } from "../../views/html-page/index.ts";
import { formatBytes, formatDuration, runTime } from "../format.ts";

/** The most output a page is made of: past it the page is slow to open and too big to pass around. */
export const HTML_MAX_OUTPUT_BYTES = 50 << 20;

/**
 * What the page will hold: the session, or one command of it. Refuses, before anything is read,
 * more output than a page holds, in one line that says what can be exported instead.
 */
export async function pageScope(store: Store, sessionId: string, command: CommandSelector | undefined): Promise<CommandPart | undefined> {
  const { info } = await readSession(store, sessionId);
  const part = command === undefined ? undefined : await commandPart(store, sessionId, command);
  const bytes = part ? part.to - part.from : info.output_bytes;
  if (bytes <= HTML_MAX_OUTPUT_BYTES) return part;
  const what = part ? `command ${part.number} of session ${sessionId}` : `session ${sessionId}`;
  const instead =
    info.meta.records_commands && !part
      ? `export one command (derun export ${sessionId} --format html --command N; numbers: derun ls ${sessionId} --commands) or `
      : "";
  throw new DerunError(
    "usage",
    `${what} has ${formatBytes(bytes)} of output, over the ${formatBytes(HTML_MAX_OUTPUT_BYTES)} an HTML page holds: ` +
      `${instead}export it as asciicast (--format asciicast-v3) for asciinema`,
  );
}

interface Facts {
  readonly command: string;
  readonly status: string;
  readonly failed: boolean;
  readonly duration: string;
}

/** `exit 1`, `SIGTERM`, `failed`, `running`. */
function sessionStatus(info: SessionInfo): { status: string; failed: boolean } {
  if (info.state === "exited") return { status: `exit ${info.final?.exit_code ?? "?"}`, failed: info.final?.exit_code !== 0 };
  if (info.state === "signaled") return { status: info.final?.signal ?? "signaled", failed: true };
  if (info.state === "failed") return { status: "failed", failed: true };
  return { status: info.state, failed: false };
}

function sessionFacts(recording: PageRecording): Facts {
  const { info } = recording;
  const ran = runTime({ state: info.state, started_at: info.meta.started_at, ended_at: info.ended_at }, Date.now());
  return { command: recording.command, ...sessionStatus(info), duration: ran === undefined ? "" : formatDuration(ran) };
}

/** `2026-12-07 06:31:02 UTC`: a page is read anywhere, so the time says its zone. */
const utc = (iso: string): string => `${new Date(iso).toISOString().slice(0, 19).replace("T", " ")} UTC`;

/** A shell session's commands; a plain session is one chapter, at its start. */
function chapters(recording: PageRecording): PageChapter[] {
  if (!recording.info.meta.records_commands) {
    const { command, ...facts } = sessionFacts(recording);
    return [{ line: command, ...facts, at: 0 }];
  }
  return recording.commands.map((c) => ({
    line: (c.command_line ?? "(command line not recorded)").replace(/[\r\n\t]+/g, " "),
    status: c.exit_code !== null ? `exit ${c.exit_code}` : c.ended_at === null ? "running" : "no status",
    failed: c.exit_code !== null && c.exit_code !== 0,
    at: c.at,
    duration: c.started_at !== null && c.ended_at !== null ? formatDuration(Date.parse(c.ended_at) - Date.parse(c.started_at)) : "",
  }));
}

/** The page of a session, or of its `part` ({@link pageScope} checked the size), and its size in words for the user. */
export async function sessionPage(store: Store, sessionId: string, part?: CommandPart): Promise<{ html: string; summary: string }> {
  const recording = await pageRecording(store, sessionId, part);
  const { info } = recording;
  const list = chapters(recording);
  // A page of one command is headed by that command.
  const only = list[0];
  const facts: Facts = part
    ? {
        command: only?.line ?? `command ${part.number}`,
        status: only?.status ?? "",
        failed: only?.failed ?? false,
        duration: only?.duration ?? "",
      }
    : sessionFacts(recording);
  const { gzip: cast, bytes: castBytes } = recording.cast;
  const masked = redactionEnabled() ? recording.masked : null;
  const html = htmlPage({
    sessionId,
    ...facts,
    ...(part ? { partOf: part.number } : {}),
    when: utc(part?.startedAt ?? info.meta.started_at),
    cols: info.meta.cols ?? DEFAULT_COLS,
    rows: info.meta.rows ?? DEFAULT_ROWS,
    cast,
    castBytes,
    endsAt: recording.seconds,
    chapters: list,
    masked,
    generator: `derun ${pkg.version}`,
  });
  const recorded = `recording ${formatBytes(castBytes)} gzipped to ${formatBytes(cast.length)}`;
  const secrets = masked === null ? "not masked" : `${masked} secrets masked`;
  return { html, summary: `html, ${formatBytes(Buffer.byteLength(html))}: ${recorded}, ${secrets}` };
}
