/**
 * The JSONL log file sink: `<root>/logs/derun.jsonl` (0600, directory 0700), rotated to
 * `derun.jsonl.1` when it passes a few MB, so it stays bounded. Logging must never disturb a run:
 * every I/O error is swallowed, and a failed open is retried at most every few seconds.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { LogFields, Logger, LogLevel } from "../core/log.ts";
import { ensureStateDir, openRegular } from "../safe-fs/index.ts";

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const MAX_BYTES = 4 * 1024 * 1024;
const REOPEN_AFTER_MS = 5000;
const RESERVED = new Set(["ts", "level", "event", "pid", "component"]);

const isLevel = (v: unknown): v is LogLevel => typeof v === "string" && v in LEVELS;

/**
 * A Logger writing to the file sink under `root`. The level comes from `options.level`, else
 * `DERUN_LOG_LEVEL`, else `info`. No I/O happens until the first record is kept.
 */
export function openLogSink(root: string, options: { level?: LogLevel; component?: string } = {}): Logger {
  const threshold = LEVELS[chooseLevel(options.level)];
  const component = options.component ?? "derun";
  const file = new RotatingLogFile(root);
  return {
    debugEnabled: threshold <= LEVELS.debug,
    log(recordLevel: LogLevel, event: string, fields?: LogFields) {
      if ((LEVELS[recordLevel] ?? LEVELS.error) < threshold) return;
      try {
        file.write(recordLine(recordLevel, event, component, fields));
      } catch {
        // never throw from logging
      }
    },
  };
}

/** `level` when given, else `DERUN_LOG_LEVEL` when it names a level, else `info`. */
function chooseLevel(level: LogLevel | undefined): LogLevel {
  const envLevel = process.env.DERUN_LOG_LEVEL?.toLowerCase();
  return level ?? (isLevel(envLevel) ? envLevel : "info");
}

/** One JSONL record; a field may not override the record's own keys. */
function recordLine(level: LogLevel, event: string, component: string, fields: LogFields | undefined): string {
  const record: Record<string, unknown> = { ts: new Date().toISOString(), level, event, pid: process.pid, component };
  if (fields) for (const key in fields) if (!RESERVED.has(key)) record[key] = fields[key];
  return `${JSON.stringify(record)}\n`;
}

/**
 * `logs/derun.jsonl` under the state root, opened on the first write and rotated once it would pass
 * MAX_BYTES. Every I/O error is swallowed: after one, the file is closed and the next open waits
 * REOPEN_AFTER_MS.
 */
class RotatingLogFile {
  readonly #root: string;
  readonly #file: string;
  #fd: number | undefined;
  #size = 0;
  #failedAt = -Infinity;

  constructor(root: string) {
    this.#root = root;
    this.#file = path.join(root, "logs", "derun.jsonl");
  }

  write(line: string): void {
    if (this.#open() === undefined) return;
    if (this.#size > 0 && this.#size + line.length > MAX_BYTES) {
      this.#rotate();
      if (this.#open() === undefined) return;
    }
    try {
      this.#size += fs.writeSync(this.#fd!, line);
    } catch {
      try {
        fs.closeSync(this.#fd!);
      } catch {}
      this.#fd = undefined;
      this.#failedAt = Date.now();
    }
  }

  #open(): number | undefined {
    if (this.#fd !== undefined) return this.#fd;
    if (Date.now() - this.#failedAt < REOPEN_AFTER_MS) return undefined;
    try {
      // Never through a symlinked logs/ (ensureStateDir refuses it), nor a symlinked file (O_NOFOLLOW).
      ensureStateDir(this.#root, "logs");
      // A FIFO or other non-regular file planted here is refused instead of blocking the run.
      const opened = openRegular(this.#file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_APPEND, {
        code: "unsafe_path",
        mode: 0o600,
        own: true,
      });
      this.#size = fs.fstatSync(opened).size;
      this.#fd = opened;
    } catch {
      this.#failedAt = Date.now();
    }
    return this.#fd;
  }

  #rotate(): void {
    try {
      if (this.#fd !== undefined) fs.closeSync(this.#fd);
      this.#fd = undefined;
      fs.renameSync(this.#file, `${this.#file}.1`);
    } catch {
      // another process rotated first, or the rename failed: keep writing to whatever is there
    }
  }
}
