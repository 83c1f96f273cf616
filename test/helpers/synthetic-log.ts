/**
 * A large server log written through a session writer (the store's own, as `derun run` writes):
 * coloured request lines, as a server piped through `derun run` prints them, in blocks of about
 * 1 MiB, one error line about 60% of the way in, and a last line. For the large-log test and bench.
 */
import type { SessionWriter } from "../../src/core/store.ts";

export interface SyntheticLog {
  /** Bytes and lines (LFs) written. */
  readonly bytes: number;
  readonly lines: number;
  /** The error line's number and its text in the text view. */
  readonly errorLine: number;
  readonly errorText: string;
}

const ERROR_TEXT = "2024-05-01T12:00:00.000Z ERROR db.pool connection refused: ECONNREFUSED 127.0.0.1:5432";
const ERROR_RAW = "2024-05-01T12:00:00.000Z \x1b[31mERROR\x1b[0m db.pool connection refused: ECONNREFUSED 127.0.0.1:5432\n";

/** Writes about `bytes` bytes (whole blocks) and returns what was written. */
export function writeSyntheticLog(writer: SessionWriter, bytes: number): SyntheticLog {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < 1 << 20; i++) {
    const line =
      `2024-05-01T12:${String(i % 60).padStart(2, "0")}:00.${String(i % 1000).padStart(3, "0")}Z \x1b[32mINFO\x1b[0m  ` +
      `http GET /api/items/${i} 200 ${i % 97}ms\n`;
    lines.push(line);
    size += line.length;
  }
  const block = new TextEncoder().encode(lines.join(""));
  const at = Math.floor(lines.length / 2);
  const errorBlock = new TextEncoder().encode([...lines.slice(0, at), ERROR_RAW, ...lines.slice(at + 1)].join(""));
  const blocks = Math.max(1, Math.round(bytes / block.length));
  const errorIn = Math.floor(blocks * 0.6);
  let written = 0;
  for (let b = 0; b < blocks; b++) {
    const chunk = b === errorIn ? errorBlock : block;
    writer.append("stdout", chunk);
    written += chunk.length;
  }
  const last = new TextEncoder().encode("shutdown complete\n");
  writer.append("stdout", last);
  return {
    bytes: written + last.length,
    lines: blocks * lines.length + 1,
    errorLine: errorIn * lines.length + at + 1,
    errorText: ERROR_TEXT,
  };
}
