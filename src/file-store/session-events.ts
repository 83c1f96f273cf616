/** Parsing the lines of events.jsonl and commands.jsonl (read by ./jsonl-file.ts). */
import type { CommandGap, CommandRecord, RecordGap, SessionEvent } from "../core/store.ts";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isSize = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) > 0 && (n as number) <= 65535;
const isOffset = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
const isOffsetOrNull = (n: unknown): n is number | null => n === null || isOffset(n);
const isTextOrNull = (v: unknown): v is string | null => v === null || typeof v === "string";

/** One resize; events come in output order. */
export function parseEvent(e: unknown, previous: SessionEvent | undefined): SessionEvent | undefined {
  if (!isObject(e) || e.type !== "resize" || !isOffset(e.offset) || !isSize(e.cols) || !isSize(e.rows) || typeof e.timestamp !== "string")
    return undefined;
  if (e.offset < (previous?.offset ?? 0)) return undefined;
  return { type: "resize", offset: e.offset, cols: e.cols, rows: e.rows, timestamp: e.timestamp };
}

/** One gap (gaps.jsonl); offsets never go back. */
export function parseGap(g: unknown, previous: RecordGap | undefined): RecordGap | undefined {
  if (!isObject(g) || !isOffset(g.offset) || !isOffset(g.bytes) || (g.reason !== "paused" && g.reason !== "ignored")) return undefined;
  if (typeof g.started_at !== "string" || typeof g.ended_at !== "string" || g.offset < (previous?.offset ?? 0)) return undefined;
  return { offset: g.offset, bytes: g.bytes, reason: g.reason, started_at: g.started_at, ended_at: g.ended_at };
}

/** One command; numbers only grow. */
export function parseCommand(c: unknown, previous: CommandRecord | undefined): CommandRecord | undefined {
  if (!isObject(c) || !Number.isSafeInteger(c.number) || (c.number as number) <= (previous?.number ?? 0)) return undefined;
  const offsets = [c.prompt_start, c.prompt_end, c.output_start, c.output_end];
  const texts = [c.command_line, c.cwd, c.started_at, c.ended_at];
  const valid =
    offsets.every(isOffsetOrNull) &&
    texts.every(isTextOrNull) &&
    (c.exit_code === null || Number.isSafeInteger(c.exit_code)) &&
    Array.isArray(c.missing) &&
    c.missing.every((gap) => typeof gap === "string");
  if (!valid) return undefined;
  return {
    number: c.number as number,
    command_line: c.command_line as string | null,
    cwd: c.cwd as string | null,
    prompt_start: c.prompt_start as number | null,
    prompt_end: c.prompt_end as number | null,
    output_start: c.output_start as number | null,
    output_end: c.output_end as number | null,
    started_at: c.started_at as string | null,
    ended_at: c.ended_at as string | null,
    exit_code: c.exit_code as number | null,
    missing: c.missing as CommandGap[],
  };
}
