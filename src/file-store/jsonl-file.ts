/**
 * Reading the small append-only JSONL files of a session (events.jsonl, commands.jsonl). Bounded (a
 * hostile or runaway file costs at most MAX_JSONL_BYTES), and only complete, valid lines count: a
 * torn last line is a write in progress, and a line that does not parse ends what can be trusted.
 */
import * as fs from "node:fs";
import { openRegularIfExists } from "../safe-fs/index.ts";

/** Tens of thousands of records: far more than a session has, and a bound on what one read costs. */
const MAX_JSONL_BYTES = 4 * 1024 * 1024;

/**
 * The records of the file at `file` (already checked by session-paths.ts) that `parse` accepts, in
 * order, up to the first it refuses; none when the file is absent.
 */
export function readJsonlFile<T>(file: string, parse: (value: unknown, previous: T | undefined) => T | undefined): T[] {
  const fd = openRegularIfExists(file, fs.constants.O_RDONLY);
  if (fd === undefined) return [];
  let text: string;
  try {
    const buffer = Buffer.allocUnsafe(Math.min(MAX_JSONL_BYTES, fs.fstatSync(fd).size));
    const length = fs.readSync(fd, buffer, 0, buffer.length, 0);
    text = buffer.toString("utf8", 0, buffer.lastIndexOf(0x0a, length - 1) + 1);
  } finally {
    fs.closeSync(fd);
  }
  const records: T[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      break;
    }
    const record = parse(value, records.at(-1));
    if (record === undefined) break;
    records.push(record);
  }
  return records;
}
