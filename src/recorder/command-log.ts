/**
 * The per-command records of a shell session: the shell integration marks in the output derun
 * already forwards and captures (it never adds, drops or alters a byte) become one record per
 * command, appended to the session as each command ends. Only for sessions started to record them
 * (`derun shell`): other commands pay nothing for it.
 *
 * A side channel of the capture: it sees exactly the bytes that were recorded, at their offsets in
 * output.bin, and stops when capture stops (a record must never point at bytes not kept).
 */
import { describeError } from "../core/errors.ts";
import type { DerunOutputChannel } from "../core/enums.ts";
import type { Logger } from "../core/log.ts";
import { CommandTracker } from "../shell/commands.ts";
import type { CommandRecord } from "../core/store.ts";
import { MarkParser } from "../shell/marks.ts";
import type { SessionWriter } from "../core/store.ts";

export class CommandLog {
  readonly #parser = new MarkParser();
  readonly #tracker = new CommandTracker();
  #stopped = false;

  constructor(
    private readonly writer: SessionWriter,
    private readonly log: Logger,
  ) {}

  /** Bytes just recorded on `channel` at `at` (their index record's time). Marks come from a terminal: only the `pty` channel is read. */
  observe(channel: DerunOutputChannel, bytes: Uint8Array, at = new Date()): void {
    if (this.#stopped || channel !== "pty") return;
    const done = this.#tracker.apply(this.#parser.push(bytes), at.getTime());
    for (const record of done) this.#keep(record);
  }

  /** Capture stopped: later bytes are not in output.bin, so no record may reach them. */
  stop(): void {
    this.#stopped = true;
  }

  /** The session ended: a command still running is closed (flagged `end`). Whether any mark was seen. */
  finish(): { readonly marksSeen: boolean } {
    if (!this.#stopped) {
      const open = this.#tracker.finish(this.#parser.offset, Date.now());
      if (open) this.#keep(open);
    }
    return { marksSeen: this.#tracker.sawMarks };
  }

  #keep(record: CommandRecord): void {
    try {
      this.writer.recordCommand(record);
    } catch (error) {
      this.#stopped = true;
      this.log.log("error", "command_record_failed", { session_id: this.writer.sessionId, error: describeError(error) });
    }
  }
}
