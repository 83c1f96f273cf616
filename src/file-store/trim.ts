/**
 * A live session past `max_session` keeps its newest bytes: its oldest are dropped in whole blocks
 * with fallocate(PUNCH_HOLE | KEEP_SIZE), so output.bin keeps its length, every byte offset and
 * cursor stays valid, and the dropped blocks go back to the filesystem. `trim.json` (a file of its
 * own: the Go original's files are unchanged) says where the kept bytes begin. It is written before
 * the blocks are punched, and readers look at it again after reading: a reader racing a trim is told
 * the bytes were trimmed, never handed the zeros of a hole.
 */
import * as fs from "node:fs";
import { SCHEMA_VERSION } from "../core/enums.ts";
import { DerunError, describeError } from "../core/errors.ts";
import { errno, libcFallocate } from "../os/libc.ts";
import type { Logger } from "../core/log.ts";
import { MAX_JSON_BYTES, openRegularIfExists, readBoundedSync, writeFileAtomic } from "../safe-fs/index.ts";
import { resolveArtifact } from "./session-paths.ts";

const FALLOC_FL_KEEP_SIZE = 0x01;
const FALLOC_FL_PUNCH_HOLE = 0x02;

/** At most this much over the cap is dropped at once: one trim.json per step, not per chunk. */
const MAX_STEP = 64 * 1024 * 1024;

/** trim.json. */
export interface TrimRecord {
  readonly schema_version: string;
  readonly session_id: string;
  /** Bytes of output.bin before this are gone (a hole); output continues at this cursor. */
  readonly kept_from: number;
  readonly trimmed_at: string;
}

/** Where the kept bytes of the session at `dir` begin: 0 when nothing was trimmed. */
export function keptFrom(dir: string, sessionId: string): number {
  const fd = openRegularIfExists(resolveArtifact(dir, "trim.json"), fs.constants.O_RDONLY);
  if (fd === undefined) return 0;
  let text: string | undefined;
  try {
    text = readBoundedSync(fd, MAX_JSON_BYTES);
  } finally {
    fs.closeSync(fd);
  }
  let kept: unknown;
  try {
    kept = text === undefined ? undefined : (JSON.parse(text) as Partial<TrimRecord>).kept_from;
  } catch {
    kept = undefined;
  }
  if (typeof kept !== "number" || !Number.isSafeInteger(kept) || kept < 0)
    throw new DerunError("corrupt_session", `corrupt session ${sessionId}: trim.json has no valid kept_from`);
  return kept;
}

/** The writer's side: called after each append with output.bin's new length. */
export class OutputTrim {
  #kept = 0;
  #off = false;
  readonly #step: number;
  readonly #max: number;

  /** `maxBytes`: the cap (at least two blocks, so whole blocks can go); `blockSize`: the filesystem's. */
  constructor(
    private readonly dir: string,
    private readonly sessionId: string,
    private readonly outputFd: number,
    maxBytes: number,
    private readonly blockSize: number,
    private readonly log: Logger,
  ) {
    this.#max = Math.max(maxBytes, 2 * blockSize);
    this.#step = Math.max(blockSize, Math.min(MAX_STEP, Math.floor(this.#max / 16 / blockSize) * blockSize));
  }

  /** Where the kept bytes begin now. */
  get keptFrom(): number {
    return this.#kept;
  }

  /** Drop whole blocks off the front once more than the cap is held. Never throws: a trim that fails stops trimming. */
  after(length: number): void {
    if (this.#off || length - this.#kept <= this.#max) return;
    // Held after this: under the cap by up to a step, so the next trim is a step of output away.
    const from = Math.floor((length - this.#max + this.#step) / this.blockSize) * this.blockSize;
    if (from <= this.#kept) return;
    try {
      const record: TrimRecord = {
        schema_version: SCHEMA_VERSION,
        session_id: this.sessionId,
        kept_from: from,
        trimmed_at: new Date().toISOString(),
      };
      writeFileAtomic(resolveArtifact(this.dir, "trim.json"), `${JSON.stringify(record)}\n`);
      const previous = this.#kept;
      this.#kept = from; // announced: from now on readers refuse what lies before it
      const mode = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;
      if (libcFallocate().fallocate(this.outputFd, mode, previous, from - previous) !== 0)
        throw new Error(`fallocate failed (errno ${errno()})`);
    } catch (error) {
      // No hole support (macOS, some filesystems): the session grows as before, and says so once.
      this.#off = true;
      this.log.log("warn", "trim_failed", { session_id: this.sessionId, error: describeError(error) });
    }
  }
}
