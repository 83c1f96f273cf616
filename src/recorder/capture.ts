/**
 * The capture side channel: every forwarded chunk is also appended to the session, and a failure
 * there (disk full, EIO, a removed directory) is logged and remembered, never thrown back into the
 * forwarding path. After the first failure capture stops, so the transcript is a clean prefix of
 * the output rather than a file with holes.
 */
import { describeError } from "../core/errors.ts";
import type { DerunOutputChannel } from "../core/enums.ts";
import type { Logger } from "../core/log.ts";
import type { SessionWriter } from "../core/store.ts";

export class Capture {
  #failure: string | undefined;
  #bytes = 0;
  #chunks = 0;

  constructor(
    private readonly writer: SessionWriter,
    private readonly log: Logger,
  ) {}

  /** Record one chunk; `at` is when it arrived (it is recorded once written to the screen, a moment later). */
  append(channel: DerunOutputChannel, bytes: Uint8Array, at?: Date): void {
    if (this.#failure !== undefined) return;
    try {
      this.writer.append(channel, bytes, at);
    } catch (error) {
      this.#failure = `capture failed after ${this.#bytes} bytes: ${describeError(error)}`;
      this.log.log("error", "capture_failed", {
        session_id: this.writer.sessionId,
        chunk_offset: this.#bytes,
        chunk_size: bytes.length,
        error: this.#failure,
      });
      return;
    }
    this.#bytes += bytes.length;
    this.#chunks += 1;
  }

  /** Why capture stopped, if it did. */
  get failure(): string | undefined {
    return this.#failure;
  }

  /** Totals for the end-of-session log record (per-chunk records are debug-only). */
  get totals(): { bytes: number; chunks: number } {
    return { bytes: this.#bytes, chunks: this.#chunks };
  }
}
