/**
 * A session as an asciicast v2 recording (docs.asciinema.org/manual/asciicast/v2), for asciinema's
 * players: a header (the terminal size the command started with, from meta.json, else 80x24; start
 * time; duration and command), then one `[t, "o", text]` per index record at its own time since the
 * start, `[t, "r", "COLSxROWS"]` where the window was resized, and a final `[t, "m", "exited 0"]`
 * marker with the exit status (v2 has no exit event; a marker is what its players show).
 *
 * Text is UTF-8 decoded with one streaming decoder, so a character split across records is never
 * split across events; bytes that are not UTF-8 become U+FFFD (the format carries text, not bytes).
 * Both channels of a pipe session are output (`o`) in recorded order.
 */
import { shellLine } from "../core/shell-quote.ts";
import type { SessionEvent, SessionInfo, Store } from "../core/store.ts";
import { rawOutput } from "./raw-output.ts";
import { maskArgv, redactorFor } from "./masking.ts";

/** The size asciinema assumes when a recording does not say (and derun had no terminal). */
export const DEFAULT_COLS = 80;
export const DEFAULT_ROWS = 24;

/** The header of a v2 file: required `version`, `width`, `height`; the rest as known. */
export function asciicastHeader(info: SessionInfo): Record<string, unknown> {
  const started = Date.parse(info.meta.started_at);
  const ended = info.ended_at === undefined ? NaN : Date.parse(info.ended_at);
  return {
    version: 2,
    width: info.meta.cols ?? DEFAULT_COLS,
    height: info.meta.rows ?? DEFAULT_ROWS,
    timestamp: Math.floor(started / 1000),
    ...(Number.isFinite(ended) ? { duration: seconds(ended - started) } : {}),
    command: shellLine(maskArgv(redactorFor(info.meta), info.meta.command).argv, "linux"),
    title: `derun ${info.meta.session_id}`,
  };
}

/** The exit marker's label: `exited 0`, `signaled SIGTERM`, `failed`; none while the session runs. */
export function exitLabel(info: SessionInfo): string | undefined {
  if (info.state === "exited") return `exited ${info.final?.exit_code ?? "?"}`;
  if (info.state === "signaled") return `signaled ${info.final?.signal ?? "?"}`;
  if (info.state === "failed") return "failed";
  return undefined;
}

const seconds = (ms: number): number => Math.round(Math.max(0, ms)) / 1000;

/**
 * The lines of the asciicast file (each without its newline): the header, then the events in time
 * order. Reads the output once, in blocks; holds one block at a time.
 */
export async function* asciicastLines(store: Store, sessionId: string): AsyncGenerator<string> {
  const info = await store.get(sessionId);
  const resizes: readonly SessionEvent[] = await store.events(sessionId);
  const started = Date.parse(info.meta.started_at);
  yield JSON.stringify(asciicastHeader(info));

  // Players expect times that never go back: a clock step or a late record keeps the previous time.
  let last = 0;
  const at = (timestamp: string) => (last = Math.max(last, seconds(Date.parse(timestamp) - started) || 0));
  const event = (time: number, code: string, data: string) => `[${time}, ${JSON.stringify(code)}, ${JSON.stringify(data)}]`;

  const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
  let nextResize = 0;
  for await (const slice of rawOutput(store, sessionId, { to: info.output_bytes })) {
    // A resize applies to the bytes from its offset on: it goes before them.
    for (; nextResize < resizes.length && resizes[nextResize]!.offset <= slice.start; nextResize++) {
      const resize = resizes[nextResize]!;
      yield event(at(resize.timestamp), "r", `${resize.cols}x${resize.rows}`);
    }
    const text = decoder.decode(slice.bytes, { stream: true });
    if (text.length > 0) yield event(at(slice.timestamp), "o", text);
  }
  const rest = decoder.decode();
  if (rest.length > 0) yield event(last, "o", rest);
  for (; nextResize < resizes.length; nextResize++) yield event(at(resizes[nextResize]!.timestamp), "r", `${resizes[nextResize]!.cols}x${resizes[nextResize]!.rows}`);
  const label = exitLabel(info);
  if (label !== undefined) yield event(info.ended_at === undefined ? last : at(info.ended_at), "m", label);
}
