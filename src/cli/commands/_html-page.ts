/**
 * `derun export --format html`: the session as one page that plays in any browser offline
 * (src/views/html-page), its facts worded for a person: the command, when, how long, how it ended,
 * and a `derun shell` session's commands as chapters (a plain `derun run` session is one chapter).
 * A session with more output than a page should carry is refused before anything is read.
 */
import pkg from "../../../package.json" with { type: "json" };
import type { SessionInfo, Store } from "../../core/store.ts";
import { DerunError } from "../../core/errors.ts";
import { DEFAULT_COLS, DEFAULT_ROWS, pageRecording, redactionEnabled, type PageRecording } from "../../transcript/index.ts";
import { htmlPage, type PageChapter } from "../../views/html-page/index.ts";
import { formatBytes, formatDuration, runTime } from "../format.ts";

/** The most output a page is made of: past it the page is slow to open and too big to pass around. */
export const HTML_MAX_OUTPUT_BYTES = 50 << 20;

/** Refuses a session over the limit, in one line that says what can be exported instead. */
export function checkPageSize(info: SessionInfo): void {
  if (info.output_bytes <= HTML_MAX_OUTPUT_BYTES) return;
  const id = info.meta.session_id;
  throw new DerunError(
    "usage",
    `session ${id} has ${formatBytes(info.output_bytes)} of output, over the ${formatBytes(HTML_MAX_OUTPUT_BYTES)} an HTML page holds: ` +
      `export it as asciicast (derun export ${id} --format asciicast-v3) or read one command (derun cat ${id} --command N)`,
  );
}

/** `exit 1`, `SIGTERM`, `failed`, `running`. */
function sessionStatus(info: SessionInfo): { status: string; failed: boolean } {
  if (info.state === "exited") return { status: `exit ${info.final?.exit_code ?? "?"}`, failed: info.final?.exit_code !== 0 };
  if (info.state === "signaled") return { status: info.final?.signal ?? "signaled", failed: true };
  if (info.state === "failed") return { status: "failed", failed: true };
  return { status: info.state, failed: false };
}

/** `2026-12-07 06:31:02 UTC`: a page is read anywhere, so the time says its zone. */
const utc = (iso: string): string => `${new Date(iso).toISOString().slice(0, 19).replace("T", " ")} UTC`;

function chapters(recording: PageRecording, status: { status: string; failed: boolean }, duration: string): PageChapter[] {
  if (!recording.info.meta.records_commands) return [{ line: recording.command, ...status, at: 0, duration }];
  return recording.commands.map((c) => ({
    line: (c.command_line ?? "(command line not recorded)").replace(/[\r\n\t]+/g, " "),
    status: c.exit_code !== null ? `exit ${c.exit_code}` : c.ended_at === null ? "running" : "no status",
    failed: c.exit_code !== null && c.exit_code !== 0,
    at: c.at,
    duration: c.started_at !== null && c.ended_at !== null ? formatDuration(Date.parse(c.ended_at) - Date.parse(c.started_at)) : "",
  }));
}

/** The page of a session (already checked by {@link checkPageSize}) and its size in words for the user. */
export async function sessionPage(store: Store, sessionId: string): Promise<{ html: string; summary: string }> {
  const recording = await pageRecording(store, sessionId);
  const { info } = recording;
  const ran = runTime({ state: info.state, started_at: info.meta.started_at, ended_at: info.ended_at }, Date.now());
  const duration = ran === undefined ? "" : formatDuration(ran);
  const status = sessionStatus(info);
  const castBytes = Buffer.byteLength(recording.cast);
  const cast = Bun.gzipSync(Buffer.from(recording.cast));
  const html = htmlPage({
    sessionId,
    command: recording.command,
    when: utc(info.meta.started_at),
    duration,
    ...status,
    cols: info.meta.cols ?? DEFAULT_COLS,
    rows: info.meta.rows ?? DEFAULT_ROWS,
    cast,
    castBytes,
    endsAt: recording.seconds,
    chapters: chapters(recording, status, duration),
    masked: redactionEnabled() ? recording.masked : null,
    generator: `derun ${pkg.version}`,
  });
  const masked = redactionEnabled() ? `${recording.masked} secrets masked` : "not masked";
  const recorded = `recording ${formatBytes(castBytes)} gzipped to ${formatBytes(cast.length)}`;
  const summary = `html, ${formatBytes(Buffer.byteLength(html))}: ${recorded}, ${masked}`;
  return { html, summary };
}
