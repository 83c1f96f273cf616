/**
 * What of the shown output reaches the transcript: everything, except what the person keeps out.
 * Sits between the screen and the capture (the screen has every byte already: this only decides
 * what is written to disk). While the session is paused (`derun pause`, through pause.json, looked
 * at every {@link POLL_MS} ms) nothing is recorded; a shell's commands that an ignore rule names are
 * left out by a {@link CommandFilter}. Each stretch left out becomes one line of gaps.jsonl at the
 * output.bin offset where it would have been, so output.bin stays contiguous and every cursor stays
 * a plain offset in it; readers say `[derun: N bytes not recorded: paused]` there.
 */
import { describeError } from "../core/errors.ts";
import type { DerunOutputChannel } from "../core/enums.ts";
import type { Logger } from "../core/log.ts";
import type { RecordGap, SessionWriter } from "../core/store.ts";

/** How often a recorder that can be paused looks for pause.json. `derun pause` waits for its answer. */
export const POLL_MS = 100;

/** Decides, chunk by chunk, what of a shell's output an ignore rule keeps out (./command-filter.ts). */
export interface CommandFilter {
  /** The chunk in pieces, in order: each to record or to leave out. */
  split(
    channel: DerunOutputChannel,
    bytes: Uint8Array,
    at: Date,
  ): Iterable<{ readonly keep: boolean; readonly bytes: Uint8Array; readonly at: Date }>;
  /** The session ended: what is still held undecided (a command line never run) is left out. */
  finish(): number;
}

export class RecordGate {
  #paused = false;
  #gap: { offset: number; bytes: number; reason: RecordGap["reason"]; started_at: string; ended_at: string } | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #broken = false;
  #unreadable = false;

  /**
   * `record`: the capture (and command log) of a kept chunk; `recorded`: bytes in output.bin so far.
   * `pausable`: look for pause requests (shell sessions, where `derun pause` finds its session).
   */
  constructor(
    private readonly writer: SessionWriter,
    private readonly log: Logger,
    private readonly record: (channel: DerunOutputChannel, bytes: Uint8Array, at: Date) => void,
    private readonly recorded: () => number,
    options: { readonly pausable?: boolean; readonly filter?: CommandFilter } = {},
  ) {
    this.filter = options.filter;
    if (options.pausable) {
      this.#look();
      this.#timer = setInterval(() => this.#look(), POLL_MS);
      this.#timer.unref?.();
    }
  }

  private readonly filter: CommandFilter | undefined;

  /** A chunk that reached the screen. */
  take(channel: DerunOutputChannel, bytes: Uint8Array, at: Date): void {
    if (this.#paused) return this.#leaveOut("paused", bytes.length, at);
    if (this.filter === undefined) return this.#keep(channel, bytes, at);
    for (const piece of this.filter.split(channel, bytes, at)) {
      if (piece.keep) this.#keep(channel, piece.bytes, piece.at);
      else this.#leaveOut("ignored", piece.bytes.length, piece.at);
    }
  }

  /** The session ended: the open gap is said, and the recorder is no longer paused. */
  finish(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    const held = this.filter?.finish() ?? 0;
    if (held > 0) this.#leaveOut("ignored", held, new Date());
    this.#closeGap();
    if (this.#paused) this.#tell(() => this.writer.setPaused(undefined));
    this.#paused = false;
  }

  #keep(channel: DerunOutputChannel, bytes: Uint8Array, at: Date): void {
    // A gap that could not be said is never closed silently: nothing more is recorded after it.
    if (bytes.length === 0 || this.#broken) return;
    this.#closeGap();
    this.record(channel, bytes, at);
  }

  #leaveOut(reason: RecordGap["reason"], bytes: number, at: Date): void {
    if (bytes === 0) return;
    const when = at.toISOString();
    if (this.#gap !== undefined && this.#gap.reason !== reason) this.#closeGap();
    if (this.#gap === undefined) this.#gap = { offset: this.recorded(), bytes: 0, reason, started_at: when, ended_at: when };
    this.#gap.bytes += bytes;
    this.#gap.ended_at = when;
  }

  #closeGap(): void {
    const gap = this.#gap;
    this.#gap = undefined;
    if (gap !== undefined) this.#tell(() => this.writer.recordGap(gap));
  }

  /** Follow pause.json: pause, resume, or end a pause whose `until` has passed. */
  #look(): void {
    let request: { readonly until?: number } | undefined;
    try {
      request = this.writer.pauseRequest();
      if (request?.until !== undefined && request.until <= Date.now()) {
        this.writer.clearPauseRequest();
        request = undefined;
      }
    } catch (error) {
      // (Also when the session was removed while it ran: nothing more is recorded then anyway.)
      if (!this.#unreadable)
        this.log.log("error", "pause_request_unreadable", { session_id: this.writer.sessionId, error: describeError(error) });
      this.#unreadable = true;
      request = {}; // the person asked for something about privacy: the safe reading is a pause
    }
    const pause = request !== undefined;
    if (pause === this.#paused) return;
    this.#paused = pause;
    this.log.log("info", pause ? "recording_paused" : "recording_resumed", { session_id: this.writer.sessionId });
    if (!pause) this.#closeGap();
    const until = request?.until === undefined ? {} : { until: new Date(request.until).toISOString() };
    this.#tell(() => this.writer.setPaused(pause ? { since: new Date().toISOString(), ...until } : undefined));
  }

  /** Bookkeeping that must never disturb the run: a failure is logged once. */
  #tell(write: () => void): void {
    try {
      write();
    } catch (error) {
      if (!this.#broken) this.log.log("error", "gap_record_failed", { session_id: this.writer.sessionId, error: describeError(error) });
      this.#broken = true;
    }
  }
}
