/**
 * Appending to one of a session's small JSONL files (events.jsonl, commands.jsonl), opened at its
 * first line: most sessions never write one. A line that does not go in whole (a full disk) is cut
 * back off, so the file stays whole lines: a torn line followed by a good one would read as one
 * invalid line, and readers stop at the first line that does not parse, hiding every later record.
 * When even the cut fails, no further line is written.
 */
import * as fs from "node:fs";
import { DerunError } from "../core/errors.ts";
import { writeAllSync } from "../safe-fs/index.ts";

export class JsonlAppender {
  #fd: number | undefined;
  /** Bytes of the file, all whole lines. */
  #bytes = 0;
  #broken: unknown;

  /** `open` creates the file (new: O_EXCL); called at the first line. */
  constructor(private readonly open: () => number) {}

  /** Appends `record` as one line. Throws on I/O failure, leaving the file as it was. */
  append(record: object): void {
    if (this.#broken !== undefined)
      throw new DerunError("internal", "no more lines after a failed write that could not be cut back", { cause: this.#broken });
    const fd = (this.#fd ??= this.open());
    const line = Buffer.from(`${JSON.stringify(record)}\n`);
    try {
      writeAllSync(fd, line);
    } catch (error) {
      try {
        fs.ftruncateSync(fd, this.#bytes);
      } catch {
        this.#broken = error;
      }
      throw error;
    }
    this.#bytes += line.length;
  }

  close(): void {
    if (this.#fd !== undefined) fs.closeSync(this.#fd);
    this.#fd = undefined;
  }
}
