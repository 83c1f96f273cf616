/**
 * The JSONL log file sink: `<root>/logs/derun.jsonl` (0600, directory 0700), rotated to
 * `derun.jsonl.1` when it passes a few MB, so it stays bounded. Logging must never disturb a run:
 * every I/O error is swallowed, and a failed open is retried at most every few seconds.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { LogFields, Logger, LogLevel } from "./log.ts";
import { ensureStateDir, openRegular } from "./safe-fs/index.ts";

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
  const envLevel = process.env.DERUN_LOG_LEVEL?.toLowerCase();
  const level: LogLevel = options.level ?? (isLevel(envLevel) ? envLevel : "info");
  const threshold = LEVELS[level];
  const component = options.component ?? "derun";
  const dir = path.join(root, "logs");
  const file = path.join(dir, "derun.jsonl");
  let fd: number | undefined;
  let size = 0;
  let failedAt = -Infinity;

  const open = (): number | undefined => {
    if (fd !== undefined) return fd;
    if (Date.now() - failedAt < REOPEN_AFTER_MS) return undefined;
    try {
      // Never through a symlinked logs/ (ensureStateDir refuses it), nor a symlinked file (O_NOFOLLOW).
      ensureStateDir(root, "logs");
      // A FIFO or other non-regular file planted here is refused instead of blocking the run.
      const opened = openRegular(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_APPEND, { code: "unsafe_path", mode: 0o600 });
      size = fs.fstatSync(opened).size;
      fd = opened;
    } catch {
      failedAt = Date.now();
    }
    return fd;
  };

  const rotate = () => {
    try {
      if (fd !== undefined) fs.closeSync(fd);
      fd = undefined;
      fs.renameSync(file, `${file}.1`);
    } catch {
      // another process rotated first, or the rename failed: keep writing to whatever is there
    }
  };

  const write = (line: string) => {
    if (open() === undefined) return;
    if (size > 0 && size + line.length > MAX_BYTES) {
      rotate();
      if (open() === undefined) return;
    }
    try {
      size += fs.writeSync(fd!, line);
    } catch {
      try {
        fs.closeSync(fd!);
      } catch {}
      fd = undefined;
      failedAt = Date.now();
    }
  };

  return {
    debugEnabled: threshold <= LEVELS.debug,
    log(recordLevel: LogLevel, event: string, fields?: LogFields) {
      if ((LEVELS[recordLevel] ?? LEVELS.error) < threshold) return;
      try {
        const record: Record<string, unknown> = { ts: new Date().toISOString(), level: recordLevel, event, pid: process.pid, component };
        if (fields) for (const key in fields) if (!RESERVED.has(key)) record[key] = fields[key];
        write(`${JSON.stringify(record)}\n`);
      } catch {
        // never throw from logging
      }
    },
  };
}
