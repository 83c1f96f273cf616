/**
 * Reading events.jsonl: the resizes of a session's window, in order. Bounded (a hostile or runaway
 * file costs at most MAX_EVENT_BYTES), and only complete, valid lines count: a torn last line is a
 * write in progress, a line that does not parse ends what can be trusted.
 */
import * as fs from "node:fs";
import type { SessionEvent } from "../store.ts";
import { openRegularIfExists } from "../safe-fs/index.ts";

/** About 40,000 resizes: far more than a session has, and a bound on what one read costs. */
const MAX_EVENT_BYTES = 4 * 1024 * 1024;

/** The events in the file at `eventsPath` (already checked by session-paths.ts); none when it is absent. */
export function readSessionEvents(eventsPath: string): SessionEvent[] {
  const fd = openRegularIfExists(eventsPath, fs.constants.O_RDONLY);
  if (fd === undefined) return [];
  let text: string;
  try {
    const buffer = Buffer.allocUnsafe(Math.min(MAX_EVENT_BYTES, fs.fstatSync(fd).size));
    const length = fs.readSync(fd, buffer, 0, buffer.length, 0);
    text = buffer.toString("utf8", 0, buffer.lastIndexOf(0x0a, length - 1) + 1);
  } finally {
    fs.closeSync(fd);
  }
  const events: SessionEvent[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const event = parseEvent(line);
    if (!event || event.offset < (events.at(-1)?.offset ?? 0)) break;
    events.push(event);
  }
  return events;
}

const isSize = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) > 0 && (n as number) <= 65535;

function parseEvent(line: string): SessionEvent | undefined {
  try {
    const e = JSON.parse(line) as Partial<SessionEvent>;
    const valid = e.type === "resize" && Number.isSafeInteger(e.offset) && e.offset! >= 0 && isSize(e.cols) && isSize(e.rows) && typeof e.timestamp === "string";
    return valid ? { type: "resize", offset: e.offset!, cols: e.cols!, rows: e.rows!, timestamp: e.timestamp! } : undefined;
  } catch {
    return undefined;
  }
}
