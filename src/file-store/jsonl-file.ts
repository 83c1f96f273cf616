/**
 * Reading the small append-only JSONL files of a session (events.jsonl, commands.jsonl). Bounded (a
 * hostile or runaway file costs at most MAX_JSONL_BYTES), and only complete, valid lines count: a
 * torn last line is a write in progress, and a line that does not parse ends what can be trusted.
 * A file larger than the bound is read from its start (events: a resize's place depends on every
 * one before it) or, for a file whose newest records matter most (commands.jsonl of a terminal open
 * for weeks), from the last line that begins within the bound's distance of its end.
 */
import * as fs from "node:fs";
import { openRegularIfExists } from "../safe-fs/index.ts";

/** Tens of thousands of records: far more than most sessions have, and a bound on what one read costs. */
export const MAX_JSONL_BYTES = 4 * 1024 * 1024;

/** Bytes read at once when a file is scanned through (a record looked for by its number). */
const SCAN_BLOCK = 256 * 1024;

type Parse<T> = (value: unknown, previous: T | undefined) => T | undefined;

export interface JsonlReadOptions {
  /** Past the bound, read the newest records (those in the file's last MAX_JSONL_BYTES), not the oldest. */
  readonly newest?: boolean;
  /** A bound other than MAX_JSONL_BYTES (tests reach the large-file paths with it). */
  readonly maxBytes?: number;
}

/**
 * The records of the file at `file` (already checked by session-paths.ts) that `parse` accepts, in
 * order, up to the first it refuses; none when the file is absent.
 */
export function readJsonlFile<T>(file: string, parse: Parse<T>, options: JsonlReadOptions = {}): T[] {
  const fd = openRegularIfExists(file, fs.constants.O_RDONLY);
  if (fd === undefined) return [];
  let text: string;
  try {
    const size = fs.fstatSync(fd).size;
    const max = options.maxBytes ?? MAX_JSONL_BYTES;
    const start = options.newest && size > max ? size - max : 0;
    const buffer = Buffer.allocUnsafe(Math.min(max, size));
    const length = fs.readSync(fd, buffer, 0, buffer.length, start);
    // From the middle of the file: the first line is cut (or whole, if a newline ends just before).
    const first = start === 0 ? 0 : buffer.indexOf(0x0a) + 1;
    text = buffer.toString("utf8", first, Math.max(first, buffer.lastIndexOf(0x0a, length - 1) + 1));
  } finally {
    fs.closeSync(fd);
  }
  return parseLines(text, parse);
}

function parseLines<T>(text: string, parse: Parse<T>, previous?: T): T[] {
  const records: T[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      break;
    }
    const record = parse(value, records.at(-1) ?? previous);
    if (record === undefined) break;
    records.push(record);
  }
  return records;
}

/**
 * The first record of the file that `wanted` accepts, read through in blocks (memory: one block
 * and one line), or undefined. Lines are parsed as by {@link readJsonlFile}: the scan stops at the
 * first line that is not a record, or that `parse` refuses after the one before it.
 */
export function findJsonlRecord<T>(file: string, parse: Parse<T>, wanted: (record: T) => boolean): T | undefined {
  const fd = openRegularIfExists(file, fs.constants.O_RDONLY);
  if (fd === undefined) return undefined;
  try {
    const block = Buffer.allocUnsafe(SCAN_BLOCK);
    let carry = "";
    let previous: T | undefined;
    for (let at = 0; ; ) {
      const length = fs.readSync(fd, block, 0, block.length, at);
      if (length === 0) return undefined;
      at += length;
      const end = block.lastIndexOf(0x0a, length - 1);
      if (end < 0) {
        carry += block.toString("utf8", 0, length);
        if (carry.length > MAX_JSONL_BYTES) return undefined; // no line is that long
        continue;
      }
      const text = carry + block.toString("utf8", 0, end + 1);
      carry = block.toString("utf8", end + 1, length);
      const lines = text.split("\n").filter((line) => line !== "");
      const records = parseLines(text, parse, previous);
      const found = records.find(wanted);
      if (found !== undefined) return found;
      if (records.length < lines.length) return undefined; // a line that is no record ends the trusted part
      previous = records.at(-1) ?? previous;
    }
  } finally {
    fs.closeSync(fd);
  }
}
