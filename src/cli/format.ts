/**
 * How the session commands show facts to people: sizes, durations, times relative to now, command
 * lines (shell-quoted, control characters made visible so a recorded argv cannot drive the
 * terminal), and text cut to a terminal's width in columns (Bun.stringWidth), not in characters.
 */
import type { DerunSessionState } from "../core/enums.ts";
import { visible } from "../core/quote.ts";
import { isLiveState } from "../core/store.ts";
import { shellLine } from "../core/shell-quote.ts";

/** `1.2 KiB`, `3 B`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = -1;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/**
 * How long a session ran, in ms: to its end, or to `now` while it runs. Undefined when it is over
 * without an end time (its derun was killed): how long its command ran is not known, and counting
 * to now would grow for ever.
 */
export function runTime(s: { readonly state: DerunSessionState; readonly started_at: string; readonly ended_at?: string }, now: number) {
  if (s.ended_at !== undefined) return Date.parse(s.ended_at) - Date.parse(s.started_at);
  return isLiveState(s.state) ? now - Date.parse(s.started_at) : undefined;
}

/** `18ms`, `1.3s`, `12s`, `4m05s`, `2h03m`, `3d04h`. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 1) return `${Math.round(ms)}ms`;
  if (s < 10) return `${s.toFixed(1)}s`;
  if (s < 60) return `${Math.floor(s)}s`;
  const two = (n: number) => String(Math.floor(n)).padStart(2, "0");
  if (s < 3600) return `${Math.floor(s / 60)}m${two(s % 60)}s`;
  if (s < 86400) return `${Math.floor(s / 3600)}h${two((s % 3600) / 60)}m`;
  return `${Math.floor(s / 86400)}d${two((s % 86400) / 3600)}h`;
}

/** `5s ago`, `3m ago`, `in 2h` (for expiry). */
export function formatRelative(iso: string, now: number = Date.now()): string {
  const at = Date.parse(iso);
  if (!Number.isFinite(at)) return "?";
  const delta = now - at;
  const span =
    Math.abs(delta) < 1000
      ? "0s"
      : formatDuration(Math.abs(delta))
          .replace(/^(\d+)\.\d(s)$/, "$1$2")
          .replace(/^(\d+[a-z])\d+[a-z]$/, "$1");
  return delta >= 0 ? `${span} ago` : `in ${span}`;
}

export { visible };

/** A recorded argv as one shell-quoted line. */
export const commandLine = (argv: readonly string[]): string => visible(shellLine(argv, process.platform));

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** `text` cut to at most `columns` terminal columns, ending in `…` when cut; never splits a character. */
export function fitWidth(text: string, columns: number): string {
  if (Bun.stringWidth(text) <= columns) return text;
  if (columns <= 0) return "";
  let out = "";
  let used = 0;
  for (const { segment } of graphemes.segment(text)) {
    const width = Bun.stringWidth(segment);
    if (used + width > columns - 1) break;
    out += segment;
    used += width;
  }
  return `${out}…`;
}
