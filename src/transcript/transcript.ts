/**
 * A transcript as the view queries read it: one session's committed output, or one recorded
 * command's part of it, fixed at the moment the query starts (a live session's later bytes wait for
 * the next call). Windows are read from the store on demand, never the whole range at once.
 */
import type { DerunOutputChannel } from "../core/enums.ts";
import { DerunError } from "../core/errors.ts";
import type { CommandRecord } from "../core/store.ts";
import { isLiveState, type SessionInfo, type Store } from "../core/store.ts";
import { promptFillerStart } from "../views/prompt-filler.ts";
import { channelsOf, spanRange, type ByteWindow, type RecordSpans } from "../views/window.ts";
import { giveTurn } from "./pace.ts";
import { DEFAULT_LIMITS } from "../core/tool.ts";
import { unrecordedCommands } from "./unrecorded-commands.ts";
import { joined } from "./joined.ts";
import { resolveSessionId } from "./session-ref.ts";
import { liveSnapshotEnd } from "./live-hold.ts";

export interface Transcript {
  readonly store: Store;
  readonly sessionId: string;
  readonly info: SessionInfo;
  /** Bytes read at once: the most a window holds. */
  readonly block: number;
  /** The range: `[lo, hi)` of output.bin. */
  readonly lo: number;
  readonly hi: number;
  /** The index records that overlap the range, in order (the first and last may reach past it). */
  readonly spans: RecordSpans;
  /** The channels that wrote in the range, in order of their first byte there. */
  readonly channels: readonly DerunOutputChannel[];
  /** Set when the range is one command of a shell session. */
  readonly command?: CommandRecord;
}

/** Which command: its number, or the last one recorded. */
export type CommandSelector = number | "last";

/**
 * The session's whole committed output, or the output of `command` (DerunError invalid_argument when
 * it has none). `session` is an id, `last` or `last~N`.
 */
export async function openTranscript(
  store: Store,
  session: string,
  command?: CommandSelector,
  block = DEFAULT_LIMITS.windowBytes,
): Promise<Transcript> {
  const sessionId = await resolveSessionId(store, session);
  const info = await store.get(sessionId);
  const all = await store.records(sessionId);
  const record = command === undefined ? undefined : await findCommand(store, info, command);
  const end = record ? Math.min(record.output_end ?? info.output_bytes, info.output_bytes) : info.output_bytes;
  // At a live end, a possible piece of a secret waits for its rest, as at a follower's (./live-hold.ts);
  // an ended command's output is whole.
  const open = isLiveState(info.state) && end === info.output_bytes && (!record || record.output_end == null);
  const hi = open ? await liveSnapshotEnd(store, sessionId, 0, end) : end;
  // A trimmed session's views begin where its kept bytes do (trim.json): what came before is gone.
  const lo = Math.min(hi, Math.max(record ? Math.min(record.output_start!, info.output_bytes) : 0, info.kept_from ?? 0));
  // The records overlapping [lo, hi): a range of the store's, not a copy of each.
  const first = all.firstEndingAfter(lo);
  // hi is at most the committed end: the record holding byte hi - 1 exists.
  const last = hi > lo ? Math.min(all.count, all.firstEndingAfter(hi - 1) + 1) : first;
  const spans = spanRange(all, first, last);
  return { store, sessionId, info, block, lo, hi, spans, channels: channelsOf(spans), ...(record ? { command: record } : {}) };
}

/** Enough for a filler across the widest terminal (the mark, its colours, a line of spaces). */
const FILLER_BYTES = 4096;

/**
 * For the text view of a finished command of a zsh session: the range without zsh's PROMPT_SP
 * filler at its end (views/prompt-filler.ts), which zsh prints after the command and before the
 * hooks that mark its end. Every other range, and every other view, is left as recorded.
 */
export async function withoutPromptFiller(t: Transcript): Promise<Transcript> {
  if (t.command?.output_end == null || !/^-?zsh/.test(basename(t.info.meta.command[0] ?? ""))) return t;
  const window = await readWindow(t, t.hi - FILLER_BYTES, t.hi);
  const start = promptFillerStart(window.bytes);
  return start === undefined ? t : { ...t, hi: window.offset + start };
}

const basename = (path: string): string => path.slice(path.lastIndexOf("/") + 1);

/** A recorded command, one that ended a moment ago, or the one running now (its output so far: `output_end` null). */
async function findCommand(store: Store, info: SessionInfo, selector: CommandSelector): Promise<CommandRecord> {
  const id = info.meta.session_id;
  const records = await store.commands(id);
  const all = [...records, ...(await unrecordedCommands(store, info, records))];
  if (all.length === 0) {
    const why = info.meta.records_commands ? "no command has run yet" : "it is not a `derun shell` session";
    throw new DerunError("invalid_argument", `session ${id} has no recorded commands: ${why}`);
  }
  // An old command of a long session is not among the newest records read: looked up by its number.
  const older = async (n: number) => (n < (all[0]?.number ?? 1) ? (await store.commands(id, { number: n }))[0] : undefined);
  const record = selector === "last" ? all[all.length - 1]! : (all.find((r) => r.number === selector) ?? (await older(selector)));
  if (!record)
    throw new DerunError("invalid_argument", `session ${id} has no command ${selector} (its commands are 1-${all.at(-1)!.number})`);
  if (record.output_start === null) {
    throw new DerunError(
      "invalid_argument",
      `command ${record.number} of session ${id} has no recorded output range (the shell sent no output-start mark)`,
    );
  }
  return record;
}

/** `[from, to)` of output.bin (clamped to the range) as one window, after a turn of the event loop when one is due. */
export async function readWindow(t: Transcript, from: number, to: number): Promise<ByteWindow> {
  const start = Math.max(t.lo, from);
  const end = Math.min(t.hi, to);
  if (end <= start) return { offset: start, bytes: new Uint8Array(0) };
  await giveTurn();
  const read = await t.store.read(t.sessionId, start, end - start);
  const first = read.slices[0];
  if (!first) return { offset: start, bytes: new Uint8Array(0) };
  return { offset: first.start, bytes: joined(read.slices.map((s) => s.bytes)) };
}

export interface WindowsOptions {
  readonly signal?: AbortSignal;
  /** Only this channel's bytes are wanted: stretches holding none of them are not read. */
  readonly channel?: DerunOutputChannel;
}

/** Windows of at most `t.block` bytes from `from` to the range's end, in order. */
export async function* windowsForward(t: Transcript, from = t.lo, options: WindowsOptions = {}): AsyncGenerator<ByteWindow> {
  const { signal, channel } = options;
  for (let at = Math.max(from, t.lo); at < t.hi; ) {
    if (signal?.aborted) return; // nobody reads the answer of a cancelled call
    if (channel !== undefined) {
      const next = t.spans.firstOf(channel, t.spans.firstEndingAfter(at));
      if (next < 0) return;
      at = Math.max(at, t.spans.offset(next));
      if (at >= t.hi) return;
    }
    const window = await readWindow(t, at, at + t.block);
    if (window.bytes.length === 0) return;
    yield window;
    at = window.offset + window.bytes.length;
  }
}

/** Whether the range is the session's whole output (line counts of finished sessions are recorded). */
export const isWholeSession = (t: Transcript): boolean => t.command === undefined;

/**
 * Why `channel` is not a stream of its own in `t`, or undefined when it is: a terminal session has
 * one stream (`pty`), and one whose stdout and stderr the caller merged (2>&1) recorded both as
 * `stdout` (which bytes came from fd 2 was never known). Asked anyway, a read would answer nothing.
 */
export function oneStreamReason(t: Transcript, channel: DerunOutputChannel): string | undefined {
  if (t.channels.includes("pty") && channel !== "pty") return `session ${t.sessionId} was recorded on a terminal: its output is one stream`;
  if (channel === "stderr" && t.info.meta.merged_output)
    return `session ${t.sessionId} had its stdout and stderr merged (2>&1): its output is one stream`;
  return undefined;
}
