/**
 * Following a live session, as `derun tail -f` does: the bytes from an offset on as they are
 * committed, woken by the store's file-change wait (as derun_wait_output is), until the session
 * ends, or, for one command of a shell session, until that command ends; and the text view of those
 * bytes, each line once it is complete.
 *
 * A command ends where the recorder says it does: its record in commands.jsonl. The recorder writes
 * that record just after it commits the bytes holding the end mark, so a read can see those bytes
 * before the record exists; the scan of unrecorded commands tells that moment apart, and the record is
 * read again until it is there. No byte past the command's end is ever passed on.
 */
import type { CommandRecord } from "../core/store.ts";
import { isLiveState, type OutputSlice, type Store } from "../core/store.ts";
import { TextView, type TextLine } from "../views/text.ts";
import { runningCommand } from "./unrecorded-commands.ts";
import { DEFAULT_LIMITS } from "../core/tool.ts";
import { holdLive } from "./live-hold.ts";
import { AssembledText } from "./assembled-text.ts";
import { LineMasking, maskSlices, redactorOf, sliceWith } from "./masking.ts";

/** Bytes per store read. */
const BLOCK = DEFAULT_LIMITS.windowBytes;
/** One wait's cap; the loop waits again until the end. */
const FOLLOW_WAIT_MS = 60_000;
/** Reads of commands.jsonl while a command's end is committed but its record not yet written. */
const RECORD_TRIES = 400;

export interface FollowOptions {
  /** First byte offset. */
  readonly from: number;
  /** Follow this command of a shell session (running when the follow starts) and stop where it ends. */
  readonly command?: number;
  readonly signal?: AbortSignal;
}

/** How a follow ended: the command's record, when it followed a command that ended. */
export interface FollowEnd {
  record?: CommandRecord;
}

/** Slices from `from` on, one batch per read, until the session (or the command) ends. */
export async function* followOutput(
  store: Store,
  sessionId: string,
  options: FollowOptions,
  end: FollowEnd = {},
): AsyncGenerator<readonly OutputSlice[]> {
  const redactor = await redactorOf(store, sessionId);
  for await (const slices of followOutputAsRecorded(store, sessionId, options, end))
    yield (await maskSlices(store, sessionId, redactor, slices)).slices;
}

/**
 * {@link followOutput} without masking: what the text follow runs its view on (it masks lines). While
 * the session is live, a possible piece of a secret waits for its rest (./live-hold.ts), decided on
 * the bytes masked as a raw read masks them.
 */
async function* followOutputAsRecorded(
  store: Store,
  sessionId: string,
  options: FollowOptions,
  end: FollowEnd,
): AsyncGenerator<readonly OutputSlice[]> {
  const redactor = await redactorOf(store, sessionId);
  const mask = async (slices: readonly OutputSlice[]) => (await maskSlices(store, sessionId, redactor, slices)).slices;
  let cursor = options.from;
  for (;;) {
    const read = await store.read(sessionId, cursor, BLOCK);
    const record = options.command === undefined ? undefined : await commandEnd(store, sessionId, options.command);
    const stop = record?.output_end ?? Number.POSITIVE_INFINITY;
    let slices: readonly OutputSlice[] = read.slices.flatMap((s) =>
      s.start >= stop ? [] : s.end <= stop ? [s] : [sliceWith(s, s.bytes.subarray(0, stop - s.start))],
    );
    const held = isLiveState(read.state) && !record ? await holdLive(slices, mask) : { slices, heldMs: 0 };
    slices = held.slices;
    if (slices.length > 0) yield slices;
    cursor = held.heldMs > 0 ? (slices.at(-1)?.end ?? cursor) : read.next_cursor;
    if (record && cursor >= stop) {
      end.record = record;
      return;
    }
    if (cursor < read.output_bytes && held.heldMs === 0) continue;
    if (!isLiveState(read.state) || options.signal?.aborted) return;
    await store.waitForOutput(sessionId, read.output_bytes, held.heldMs || FOLLOW_WAIT_MS, options.signal);
  }
}

/** Command `number`'s record once it has ended; undefined while it runs, or when the session ended without one. */
async function commandEnd(store: Store, sessionId: string, number: number): Promise<CommandRecord | undefined> {
  for (let tries = 0; ; tries++) {
    const records = await store.commands(sessionId);
    // An old command of a long session is not among the newest records read: looked up by its number.
    const done =
      records.find((r) => r.number === number) ??
      (number < (records[0]?.number ?? 1) ? (await store.commands(sessionId, { number }))[0] : undefined);
    if (done) return done;
    const info = await store.get(sessionId);
    if (!isLiveState(info.state)) return undefined;
    if ((await runningCommand(store, info, records))?.number === number || tries >= RECORD_TRIES) return undefined;
    await Bun.sleep(5); // the record is being written this moment (see the module's comment)
  }
}

/** Bytes of an open line a text follow holds back at most: a longer line is taken in as it comes. */
const HELD_LINE = 1 << 16;

/** `slices` up to and including their last LF, and the rest (all of it past HELD_LINE bytes). */
function untilLastLf(slices: readonly OutputSlice[]): [OutputSlice[], OutputSlice[]] {
  if (slices.reduce((n, s) => n + s.bytes.length, 0) > HELD_LINE) return [[...slices], []];
  for (let i = slices.length - 1; i >= 0; i--) {
    const s = slices[i]!;
    const lf = s.bytes.lastIndexOf(0x0a);
    if (lf < 0) continue;
    if (lf === s.bytes.length - 1) return [slices.slice(0, i + 1), slices.slice(i + 1)];
    const after = { channel: s.channel, start: s.start + lf + 1, end: s.end, timestamp: s.timestamp, bytes: s.bytes.subarray(lf + 1) };
    return [
      [...slices.slice(0, i), sliceWith(s, s.bytes.subarray(0, lf + 1))],
      [after, ...slices.slice(i + 1)],
    ];
  }
  return [[], [...slices]];
}

export interface TextFollowOptions extends FollowOptions {
  /** Lines that end at or before this offset were shown already (a tail): skip them. */
  readonly after: number;
}

/**
 * The text view of {@link followOutput}'s bytes: complete lines in batches as they are committed,
 * then, once the session (or command) has ended, the lines left open.
 */
export async function* followText(
  store: Store,
  sessionId: string,
  options: TextFollowOptions,
  end: FollowEnd = {},
): AsyncGenerator<readonly TextLine[]> {
  const view = new TextView();
  const redactor = await redactorOf(store, sessionId);
  const masking = new LineMasking(redactor);
  // What the terminal assembles is masked in the bytes first (./assembled-text.ts); at a live tail
  // only with the bytes written so far after them.
  const assembled = new AssembledText(store, sessionId, redactor, masking);
  const shown = async (slices: readonly OutputSlice[]): Promise<TextLine[]> => {
    const lines: TextLine[] = [];
    for (const s of await assembled.slices(slices))
      for (const line of view.write(s.channel, s.bytes, s.start)) if (line.end > options.after) lines.push(masking.line(line));
    return lines;
  };
  // The bytes after the last LF are held back until a later write ends their line (or they pass
  // HELD_LINE bytes, or the output ends): masked with what comes after them, a piece a later write
  // puts together with them on the screen (`ESC[row;colH` back to it) is masked before the view takes it in.
  let held: OutputSlice[] = [];
  for await (const recorded of followOutputAsRecorded(store, sessionId, options, end)) {
    const [ready, rest] = untilLastLf([...held, ...recorded]);
    held = rest;
    const lines = ready.length > 0 ? await shown(ready) : [];
    if (lines.length > 0) yield lines;
  }
  if (held.length > 0) {
    const lines = await shown(held);
    if (lines.length > 0) yield lines;
  }
  // Every open line is one not shown yet: the tail leaves its open lines to the follow.
  const open = view.partials();
  if (open.length > 0) yield masking.lines(open);
}
