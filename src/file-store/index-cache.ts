/**
 * Incremental view of index.jsonl. Each refresh reads only the bytes appended since the last one
 * and parses complete lines; a torn last line stays unread until its newline lands, so readers
 * never serve bytes the index does not describe. Records are kept by column (index-records.ts)
 * and found by binary search on offset.
 */
import * as fs from "node:fs";
import type { IndexRecord } from "../core/store.ts";
import { DerunOutputChannel } from "../core/enums.ts";
import { IndexColumns } from "./index-records.ts";
import { openRegularIfExists } from "../safe-fs/index.ts";

const READ_BLOCK = 1 << 20;
const NEWLINE = 0x0a;
const CHANNELS = new Set<string>(Object.values(DerunOutputChannel));
const decoder = new TextDecoder();

/** The parsed, committed prefix of one session's index.jsonl. */
export class SessionIndex {
  readonly records = new IndexColumns();
  /** Bytes of output.bin covered by complete, valid index lines. */
  committed = 0;
  private parsedBytes = 0;
  private fileId = "";
  /** Complete lines parsed. */
  private lines = 0;
  /**
   * The number of the first complete line that is not a valid next record: nothing from it on can
   * be trusted. derun appends whole lines only, so such a line is damage, not a write in progress.
   */
  brokenLine: number | undefined;

  /** Catch up with the file at `indexPath` (already checked by session-paths.ts). A missing file is empty. */
  refresh(indexPath: string): void {
    const fd = openRegularIfExists(indexPath, fs.constants.O_RDONLY);
    if (fd === undefined) return this.reset("");
    try {
      const stat = fs.fstatSync(fd);
      const id = `${stat.dev}:${stat.ino}`;
      if (id !== this.fileId || stat.size < this.parsedBytes) this.reset(id);
      const buffer = Buffer.allocUnsafe(Math.min(READ_BLOCK, Math.max(0, stat.size - this.parsedBytes)));
      while (this.brokenLine === undefined && this.parsedBytes < stat.size) {
        const n = fs.readSync(fd, buffer, 0, Math.min(buffer.length, stat.size - this.parsedBytes), this.parsedBytes);
        const lastNewline = buffer.subarray(0, n).lastIndexOf(NEWLINE);
        if (n === 0 || lastNewline < 0) break; // torn tail: wait for the rest of the line
        this.parseLines(buffer.subarray(0, lastNewline + 1));
      }
    } finally {
      fs.closeSync(fd);
    }
  }

  private parseLines(block: Buffer): void {
    let start = 0;
    while (start < block.length) {
      const end = block.indexOf(NEWLINE, start);
      const record = parseRecord(decoder.decode(block.subarray(start, end)));
      if (!record || record.offset !== this.committed) {
        this.brokenLine = this.lines + 1;
        return;
      }
      this.lines += 1;
      this.records.push(record.length, record.channel, record.timestamp);
      this.committed += record.length;
      this.parsedBytes += end + 1 - start;
      start = end + 1;
    }
  }

  private reset(fileId: string): void {
    this.records.clear();
    this.committed = 0;
    this.parsedBytes = 0;
    this.lines = 0;
    this.brokenLine = undefined;
    this.fileId = fileId;
  }
}

function parseRecord(line: string): IndexRecord | undefined {
  try {
    const r = JSON.parse(line) as Partial<IndexRecord>;
    const valid =
      Number.isSafeInteger(r.offset) &&
      r.offset! >= 0 &&
      Number.isSafeInteger(r.length) &&
      r.length! >= 0 &&
      typeof r.channel === "string" &&
      CHANNELS.has(r.channel) &&
      typeof r.timestamp === "string";
    return valid ? { offset: r.offset!, length: r.length!, channel: r.channel!, timestamp: r.timestamp! } : undefined;
  } catch {
    return undefined;
  }
}

const TAIL_BYTES = 4096;

/** `offset + length` of the last complete index line, reading only the end of the file; undefined when that line is no record. */
function committedFromTail(indexPath: string): number | undefined {
  const fd = openRegularIfExists(indexPath, fs.constants.O_RDONLY);
  if (fd === undefined) return 0;
  try {
    const size = fs.fstatSync(fd).size;
    const start = Math.max(0, size - TAIL_BYTES);
    const buffer = Buffer.allocUnsafe(size - start);
    const tail = buffer.subarray(0, fs.readSync(fd, buffer, 0, buffer.length, start));
    const end = tail.lastIndexOf(NEWLINE);
    if (end < 0) return 0;
    const record = parseRecord(decoder.decode(tail.subarray(tail.lastIndexOf(NEWLINE, end - 1) + 1, end)));
    return record ? record.offset + record.length : undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** Per-session indexes of one store, bounded so a long-lived MCP server does not grow without end. */
export class IndexCache {
  private readonly entries = new Map<string, SessionIndex>();
  constructor(private readonly capacity = 64) {}

  /** The index of session `id` as last refreshed, if it is still kept (then most recently used). */
  cached(id: string): SessionIndex | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    this.entries.delete(id);
    this.entries.set(id, entry);
    return entry;
  }

  /** The refreshed index of session `id` whose index file is at `indexPath`. */
  get(id: string, indexPath: string): SessionIndex {
    let entry = this.entries.get(id);
    if (entry)
      this.entries.delete(id); // re-insert: most recently used last
    else entry = new SessionIndex();
    this.entries.set(id, entry);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    entry.refresh(indexPath);
    return entry;
  }

  /**
   * Committed bytes of session `id` without building its index: from the cached index if there is
   * one, else from the last complete line of the file (a listing must not parse every index).
   */
  committed(id: string, indexPath: string): number {
    const entry = this.entries.get(id);
    if (entry) {
      entry.refresh(indexPath);
      return entry.committed;
    }
    // A last line that is no record: the whole index says where the valid records end.
    return committedFromTail(indexPath) ?? this.get(id, indexPath).committed;
  }

  /** Forget a session (removed by retention). */
  delete(id: string): void {
    this.entries.delete(id);
  }
}
